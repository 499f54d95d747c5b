// The desktop's OCR and PDF workers in processes of their own, as the headless server has them (server/workspace/
// off-thread.ts): Electron's binary cannot be forked as Node (the packaged app's runAsNode fuse is off), so the
// off-thread host runs as an Electron utility process instead. The native memory a recognition or a PDF leaves in
// the allocator then leaves with that process, not with the app (docs/benchmarks.md, issue 37 finding 8). The server
// imports no Electron: this module adapts utilityProcess to the launcher the server takes (setHostLauncher).
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { unpackedPath } from '../server/core/unpacked-path.js';
import type { HostLauncher, HostProcess } from '../server/workspace/off-thread.js';
import type { ToHost } from '../server/workspace/off-thread-protocol.js';

/** How the worker processes are named in the system's task manager (Electron's `serviceName`). */
export const WORKER_SERVICE_NAME = 'Satchel worker';

/** What this module uses of a process Electron's utilityProcess.fork() returns. */
export interface UtilityChild {
  readonly pid: number | undefined;
  postMessage(message: unknown): void;
  kill(): boolean;
  on(event: 'exit', listener: (code: number) => void): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** What this module uses of Electron's `utilityProcess` (the tests hand in a fake). */
export interface UtilityForker {
  fork(modulePath: string, args: string[], options: { env: NodeJS.ProcessEnv; serviceName: string; stdio: 'ignore' }): UtilityChild;
}

/** The compiled host beside the compiled server, from app.asar.unpacked (electron-builder.yml unpacks it with what
 *  it loads, as every worker entry). */
export function workerHostFile(): string {
  return unpackedPath(fileURLToPath(new URL('../server/workspace/off-thread-host.js', import.meta.url)));
}

/** The server's launcher over `utility`: each host a utility process with the environment the server chose (the
 *  allocator settings on Linux), its output not for the log. */
export function utilityHostLauncher(utility: UtilityForker): HostLauncher {
  return (host, env) => new UtilityHost(utility.fork(host, [], { env, serviceName: WORKER_SERVICE_NAME, stdio: 'ignore' }));
}

class UtilityHost extends EventEmitter implements HostProcess {
  private exited = false;

  constructor(private readonly child: UtilityChild) {
    super();
    child.on('message', (message) => this.emit('message', message));
    child.on('exit', (code) => {
      if (this.exited) return;
      this.exited = true;
      this.emit('exit', code);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(message: ToHost): void {
    // A process already gone: its exit answers the job.
    if (!this.exited) this.child.postMessage(message);
  }

  kill(): void {
    if (!this.exited) this.child.kill();
  }

  // A utility process never keeps the app running: the app's windows and quit decide that, and Electron ends its
  // utility processes with it.
  ref(): void {}
  unref(): void {}
}
