// A server stand-in for off-thread.test.ts: starts one off-thread child (the host given as argv[2]) whose worker
// spins on its job forever, prints the child's pid once the job is running, and waits to be killed.
import { startOffThread } from '../off-thread.js';

const BUSY = `require('node:worker_threads').parentPort.on('message', (m) => { if (m === 'spin') { require('node:worker_threads').parentPort.postMessage('spinning'); for (;;); } });`;
const host = process.argv[2];
if (!host) throw new Error('usage: off-thread-parent <host>');
const child = startOffThread({ script: { source: BUSY }, maxHeapMb: 64, memory: { budgetBytes: 1024 ** 3, sampleMs: 50 }, childHost: host });
child.on('message', () => process.stdout.write(`${child.pid}\n`));
child.post('spin' as unknown as object, { job: true });
setInterval(() => {}, 1000);
