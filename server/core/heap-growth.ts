// V8's heap growing factor for the server's process (issue 37, finding 2). After each full collection V8 starts the
// next one when the old generation has grown by a factor of what was live, a factor it picks from the GC and
// mutator speeds: up to 4 under a fast-allocating load. "Export all" is such a load: it holds little (a page of
// rows, one chunk of a member, at most export/conversation-parts.ts MARKDOWN_KEPT_BYTES of a conversation's
// Markdown) but allocates gigabytes over a year's history (redaction most), and what is alive across two young
// collections (the page being written, the chunks on their way to the socket) is promoted and dies in the old
// generation. With V8's factor a ~45 MiB live heap grew to ~200 MiB of garbage before it was collected: peak RSS
// idle + 161 MiB at 200,000 messages (docs/benchmarks.md). Held at 1.3, the heap stays within ~30 % of what is
// live. Set once at the start, not only around an export: the threshold an export first meets is the one V8 set
// at the last full collection before it (measured: idle + 79 MiB with the factor set only while exporting).
//
// This is not a heap limit. `--heap-growing-percent` only places V8's next full collection above the heap that
// was live after the last one, every time; no size is capped (`--max-old-space-size` is untouched), so no
// allocation ever fails because of it: more live data makes the next threshold larger in step. What it costs is
// more full collections (mostly concurrent marking) under allocation-heavy work: measured with the export, no
// more server CPU per export (docs/benchmarks.md). A person's own `--heap-growing-percent` (node's flags,
// NODE_OPTIONS, Electron's `--js-flags`) is left as they set it.
import v8 from 'node:v8';

/** The old generation may grow 30 % over what was live after a full collection before the next one starts. */
export const SERVER_HEAP_GROWING_PERCENT = 30;

/** True when the flag was given when the process started: that choice is the person's. */
export function heapGrowthChosen(args: readonly string[], nodeOptions: string | undefined): boolean {
  return /heap[-_]growing[-_]percent/.test([...args, nodeOptions ?? ''].join(' '));
}

/**
 * The factor while upload bodies stream in (issue 37, finding 5). Every request body chunk is a new ArrayBuffer
 * (node's HTTP parser copies each one), and V8 counts the external memory allocated since its last full collection
 * against the old generation's headroom: held at 1.3 of a ~15 MiB live heap, that headroom (live + max(30 %, 8 MiB)
 * + the young generation) ran out every ~8-24 MiB of upload bodies, and each time V8 marked and compacted the whole
 * heap: ~2 full collections per 32 MiB, about a quarter of an upload's CPU (docs/benchmarks.md, session 14). At 4×
 * the headroom outlasts the young generation's own collection, which frees the chunks, and no full collection
 * comes. Only while a body streams: a full collection during a burst of uploads sets the next threshold from it,
 * the first one after sets it back from SERVER_HEAP_GROWING_PERCENT.
 */
export const STREAMING_HEAP_GROWING_PERCENT = 300;
/**
 * The streaming factor stays this long after the last body has ended (issue 37, finding 5, session 15). Uploads come
 * in bursts (a folder dropped, 32 files at once, then the next 32): set back the moment the last body of one wave
 * ended, the full collection V8 finishes right after it (its marking started while the wave's chunks were alive)
 * set the threshold from 1.3 again, so the next wave's chunks ran out of headroom at once and paid another full
 * collection: 10-190 ms of main-thread time per 32 uploads (`--trace-gc`, docs/benchmarks.md). Two seconds bridge the
 * gap between waves; once no body has streamed for that long the server's factor is back, as before.
 */
export const STREAMING_LINGER_MS = 2_000;

let applied = false;
/** Whether the factor is this server's to set (not the person's own flag). */
let ours = false;
/** Upload bodies streaming now. */
let streaming = 0;
/** Sets the server's factor back once STREAMING_LINGER_MS have passed with no body streaming. */
let settle: NodeJS.Timeout | undefined;
/** Whether the streaming factor is the one set now. */
let raised = false;

/** Set the server's heap growing factor (once per process; later calls do nothing). True when this call set it. */
export function setServerHeapGrowth(): boolean {
  if (applied) return false;
  applied = true;
  if (heapGrowthChosen([...process.execArgv, ...process.argv], process.env.NODE_OPTIONS)) return false;
  ours = true;
  raised = streaming > 0;
  v8.setFlagsFromString(`--heap-growing-percent=${raised ? STREAMING_HEAP_GROWING_PERCENT : SERVER_HEAP_GROWING_PERCENT}`);
  return true;
}

/**
 * An upload body starts streaming: the factor is STREAMING_HEAP_GROWING_PERCENT until STREAMING_LINGER_MS after the
 * returned function has been called (once; later calls do nothing) for every body that started. Nothing when the
 * factor is the person's.
 */
export function bodyStreaming(): () => void {
  streaming++;
  clearTimeout(settle);
  settle = undefined;
  if (ours && !raised) {
    raised = true;
    v8.setFlagsFromString(`--heap-growing-percent=${STREAMING_HEAP_GROWING_PERCENT}`);
  }
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--streaming > 0 || !raised) return;
    settle = setTimeout(() => {
      settle = undefined;
      if (streaming > 0 || !raised) return;
      raised = false;
      v8.setFlagsFromString(`--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`);
    }, STREAMING_LINGER_MS);
    // A timer of the server's own memory policy never keeps the process alive.
    settle.unref();
  };
}

/** The factor this module set last (tests): none when the person chose it or the server has not set it. */
export function heapGrowingPercentSet(): number | undefined {
  if (!ours) return undefined;
  return raised ? STREAMING_HEAP_GROWING_PERCENT : SERVER_HEAP_GROWING_PERCENT;
}
