// What the server and an off-thread host (off-thread-host.ts, a child process) say to each other, and the exit codes
// by which the host tells why it ended. Imported by both sides; the host's entry runs on import, so the server
// never imports it.

/** The host ended itself because the job it ran passed its memory budget (the exit returns that memory). */
export const HOST_EXIT_MEMORY = 86;
/** The worker thread inside the host ended (a crash, its heap limit): the host ends with it. */
export const HOST_EXIT_WORKER_GONE = 87;
/** The host was sent something it does not understand (a bug, never a file's doing). */
export const HOST_EXIT_PROTOCOL = 88;

/** Which script the host runs in its worker thread: a source evaluated as it stands, or a compiled file. */
export type OffThreadScript = { source: string } | { file: string };

export interface HostInit {
  t: 'init';
  script: OffThreadScript;
  workerData?: unknown;
  maxHeapMb: number;
  /** What one job may add to the host's resident set before the host ends itself. */
  budgetBytes: number;
  sampleMs: number;
}

/** `job`: a request answered by the worker's next message, watched for memory until then; `post`: a message with
 *  no answer (a warm-up), not watched. */
export type ToHost = HostInit | { t: 'job'; m: unknown } | { t: 'post'; m: unknown };

export interface FromHost {
  m: unknown;
}

/** The buffers a message's top-level byte arrays own whole, to move (not copy) to the worker thread: one level deep,
 *  as the OCR and PDF requests and replies carry their bytes ({ bytes }, { pdf }, { image }, { pixels: { data } }). */
export function ownedBuffers(message: unknown): ArrayBuffer[] {
  const found: ArrayBuffer[] = [];
  const take = (value: unknown) => {
    if (!ArrayBuffer.isView(value)) return;
    const { buffer } = value;
    if (buffer instanceof ArrayBuffer && value.byteOffset === 0 && value.byteLength === buffer.byteLength && !found.includes(buffer)) found.push(buffer);
  };
  if (message && typeof message === 'object') {
    for (const value of Object.values(message)) {
      take(value);
      if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) for (const inner of Object.values(value)) take(inner);
    }
  }
  return found;
}
