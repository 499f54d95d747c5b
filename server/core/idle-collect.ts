// Full garbage collections once the server has been idle a while (issue 37, finding 8: idle RSS after a day of
// use ≤ 1.3× idle RSS after start). V8 collects when JavaScript allocates; an idle server allocates nothing, so the
// heap a busy hour grew stays committed however little of it is live: after a 4-minute soak of 311 turns the heap
// held 45 MiB live in 123 MiB committed after 2 minutes idle, and RSS stayed at 168 MiB against 84 at the start
// (docs/benchmarks.md, session 17). Full collections then give the free pages back to the system. Once per idle
// spell (a request starts the next one), after the caches' own idle releases (DOC_TEXTS_IDLE_MS, the OCR worker's
// exit) and the application's (app.ts releaseIdle: the conversations and answers kept, run first in the spell), so
// what they let go is collected too: IDLE_COLLECTIONS of them a second apart, each a pause of one full
// collection (tens of ms over a 100 MiB heap) at a moment nobody is waiting on it. Then the C library's free pages go
// back too (core/malloc-trim.ts): what the collections freed outside the JS heap (Buffers' memory) and what the busy
// spell's native work left free.
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Trim } from './malloc-trim.js';

/** No request started for this long: collect once. After context/doc-text.ts DOC_TEXTS_IDLE_MS (60 s), so the
 *  documents it lets go are collected in the same pass. */
export const IDLE_COLLECT_MS = 90_000;
/**
 * Full collections per idle spell. One is not enough: a collection compacts only some fragmented pages, and the pages
 * it frees go back only once swept, which happens after its pause. After a 611-turn soak the committed heap was
 * 183 MiB after the first collection (54 MiB live), 120 after the second, 62 after six (docs/benchmarks.md,
 * session 18).
 */
export const IDLE_COLLECTIONS = 6;
/** Between two of them: each its own short pause, and the sweeping of the one before done meanwhile. */
export const IDLE_COLLECTION_GAP_MS = 1_000;

/**
 * V8's full collection: the process's own `gc` when it was started with --expose-gc, else one exposed now (the
 * flag set at run time only adds the function to new contexts, here one made for it), or undefined where neither
 * can be had (then nothing is collected early, as before).
 */
export function fullCollection(): (() => void) | undefined {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as () => void;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What an idle spell runs: first the caches let go of what a busy spell filled (`letGo`: the application's
 * releaseIdle, app.ts), then V8's full collections, then the C library's trim, each where this process has it.
 */
export interface IdleRelease {
  letGo?: () => void;
  collect?: () => void;
  trim?: Trim;
}

/** The release from what this process has; null where it has none of them (then nothing runs when idle). */
export function idleRelease(collect: (() => void) | undefined, trim: Trim | undefined, letGo?: () => void): IdleRelease | null {
  return collect || trim || letGo ? { letGo, collect, trim } : null;
}

export class IdleCollector {
  private last = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Released since the last request (or none came yet): nothing new to give back. */
  private done = true;

  /** `release`: what this process can run when idle (idleRelease); null runs nothing. */
  constructor(private readonly release: IdleRelease | null) {}

  /** A request started. */
  touch(): void {
    this.last = Date.now();
    this.done = false;
    this.arm();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One timer at a time, not one per request; unref'd: it never keeps the process up. */
  private arm(): void {
    if (this.timer || !this.release) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (Date.now() - this.last < IDLE_COLLECT_MS) return this.arm();
      if (this.done) return;
      this.done = true;
      this.step(1, this.last);
    }, Math.max(0, this.last + IDLE_COLLECT_MS - Date.now()));
    this.timer.unref();
  }

  /** Collection `n` of the spell that began after the request at `since`; the next a gap later, the trim after the
   *  last. A request in between ends this spell's release: the next spell's timer starts from it. */
  private step(n: number, since: number): void {
    const { letGo, collect, trim } = this.release!;
    // What the caches let go is garbage for the collections that follow.
    if (n === 1) letGo?.();
    collect?.();
    if (collect && n < IDLE_COLLECTIONS) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.last !== since) return this.arm();
        this.step(n + 1, since);
      }, IDLE_COLLECTION_GAP_MS);
      this.timer.unref();
      return;
    }
    // After the JS heap: the Buffers its collections dropped were freed into the C heap, which this gives back.
    trim?.();
  }
}
