// For off-thread.test.ts: a job answered, the child left idle (unreferenced, as the OCR engine and the PDF reader
// leave it), then terminated with nothing else keeping the event loop alive.
import { startOffThread } from '../off-thread.js';

const ECHO = `require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m));`;
const host = process.argv[2];
if (!host) throw new Error('usage: off-thread-idle-end <host>');
const child = startOffThread({ script: { source: ECHO }, maxHeapMb: 64, memory: { budgetBytes: 1024 ** 3, sampleMs: 50 }, childHost: host });
await new Promise((resolve) => {
  child.once('message', resolve);
  child.post({ ping: 1 }, { job: true });
});
child.unref();
await child.terminate();
process.stdout.write('ended\n');
