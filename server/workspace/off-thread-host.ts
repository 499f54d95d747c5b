// The entry of a child process that runs one worker thread for the server (off-thread.ts): the OCR engine's or the
// PDF reader's. Why a process: the memory a worker's native code allocates (pdf.js' streams, the page images,
// V8's compilation of Tesseract's WebAssembly core) is malloc'd on the worker's thread, and glibc keeps a thread's
// arena after the thread ends, so a server that ran OCR held ~100 MiB more for good (docs/benchmarks.md, issue 37
// finding 8). A process ending returns all of it.
//
// It relays the server's messages to its worker thread and the worker's answers back, and watches its own resident
// set while a job runs (rss-watchdog.ts: the worker's ArrayBuffers are outside its heap limit): past the job's
// budget it exits with HOST_EXIT_MEMORY, which frees everything at once. It exits with its worker, and when its
// IPC channel closes (the server ended or was killed), so it never outlives the server. Under Electron it is a
// utility process (main/worker-process.ts), spoken to through process.parentPort instead of the IPC channel.
import { Worker } from 'node:worker_threads';
import { createRssWatchdog, type RssWatchdog } from './rss-watchdog.js';
import { HOST_EXIT_MEMORY, HOST_EXIT_PROTOCOL, HOST_EXIT_WORKER_GONE, ownedBuffers, type FromHost, type ToHost } from './off-thread-protocol.js';

/** Electron's utilityProcess gives its child a port instead of Node's IPC channel (main/worker-process.ts): messages
 *  arrive as events carrying `data`. The server imports no Electron, so its shape is named here. */
interface ParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}
const port = (process as { parentPort?: ParentPort }).parentPort;
const send = port ? (reply: FromHost) => port.postMessage(reply) : process.send?.bind(process);
const onMessage = (listener: (message: ToHost) => void) => (port ? port.on('message', (event) => listener(event.data as ToHost)) : process.on('message', listener));

if (send) {
  let worker: Worker | undefined;
  let memory: RssWatchdog | undefined;
  let unwatch: (() => void) | undefined;

  // The server is gone (it ended, or was killed and the kernel closed its end of the channel). A utility process
  // has no channel to close: Electron ends it with the app.
  process.on('disconnect', () => process.exit(0));

  onMessage((message: ToHost) => {
    if (message.t === 'init') {
      if (worker) process.exit(HOST_EXIT_PROTOCOL);
      const { script } = message;
      const w = 'source' in script ? new Worker(script.source, { eval: true, workerData: message.workerData, resourceLimits: { maxOldGenerationSizeMb: message.maxHeapMb }, stdout: true, stderr: true }) : new Worker(script.file, { workerData: message.workerData, resourceLimits: { maxOldGenerationSizeMb: message.maxHeapMb }, stdout: true, stderr: true });
      // What the worker's code prints (Emscripten's Tesseract warnings, pdf.js' complaints) is not for the log.
      w.stdout.resume();
      w.stderr.resume();
      w.on('error', () => process.exit(HOST_EXIT_WORKER_GONE));
      w.on('exit', () => process.exit(HOST_EXIT_WORKER_GONE));
      w.on('message', (m: unknown) => {
        unwatch?.();
        unwatch = undefined;
        send({ m } satisfies FromHost);
      });
      memory = createRssWatchdog({ budgetBytes: message.budgetBytes, intervalMs: message.sampleMs });
      worker = w;
      return;
    }
    if (!worker || !memory || (message.t !== 'job' && message.t !== 'post')) return process.exit(HOST_EXIT_PROTOCOL);
    if (message.t === 'job') unwatch ??= memory.watch(() => process.exit(HOST_EXIT_MEMORY));
    worker.postMessage(message.m, ownedBuffers(message.m));
  });
}
