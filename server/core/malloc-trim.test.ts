// The addon behind the idle release (native/satchel-malloc-trim, built at install): it loads here (Linux, glibc), and its
// trim gives back what a fragmented C heap keeps after its chunks were freed; where it cannot load, nothing breaks.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fullCollection } from './idle-collect.js';
import { loadMallocTrim, MALLOC_TRIM_PACKAGE } from './malloc-trim.js';

const MiB = 2 ** 20;
/** Buffers under the C library's mmap threshold (128 KiB by default), so they come from its heap, not own mappings. */
const CHUNK_BYTES = 32 * 1024;
const CHUNKS = 3_072; // 96 MiB
/** One in this many kept alive: the freed ones lie between live ones, which is what free() alone cannot give back. */
const KEEP_EVERY = 16;

function rssAnonBytes(): number {
  const line = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(line![1]) * 1024;
}

const onGlibc = process.platform === 'linux' && typeof (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime === 'string';

describe('loadMallocTrim', () => {
  it.runIf(onGlibc)('loads the installed addon on glibc, and its trim gives back freed chunks that lie between live ones', () => {
    const trim = loadMallocTrim();
    expect(trim).toBeTypeOf('function');
    const gc = fullCollection()!;
    gc();
    trim!();
    const start = rssAnonBytes();
    // allocUnsafeSlow: each its own malloc (not the shared pool), written so its pages are resident.
    let chunks: Buffer[] | null = Array.from({ length: CHUNKS }, (_, i) => Buffer.allocUnsafeSlow(CHUNK_BYTES).fill(i & 0xff));
    const kept = chunks.filter((_, i) => i % KEEP_EVERY === KEEP_EVERY - 1);
    expect(rssAnonBytes() - start).toBeGreaterThan(64 * MiB);
    chunks = null;
    void chunks;
    gc();
    // Freed, yet still resident: the kept chunks pin the heap's pages above them.
    const freed = rssAnonBytes();
    expect(freed - start).toBeGreaterThan(48 * MiB);
    expect(trim!()).toBe(true);
    expect(freed - rssAnonBytes()).toBeGreaterThan(40 * MiB);
    // The live chunks are untouched.
    kept.forEach((chunk, n) => expect(chunk[CHUNK_BYTES - 1]).toBe((n * KEEP_EVERY + KEEP_EVERY - 1) & 0xff));
  });

  it('is undefined where the addon is missing or does not call glibc, and never throws', () => {
    const missing = (id: string) => {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
    };
    expect(loadMallocTrim(missing)).toBeUndefined();
    expect(loadMallocTrim(() => ({ supported: false, trim: () => false }))).toBeUndefined();
    expect(loadMallocTrim(() => ({ supported: true }))).toBeUndefined();
    expect(loadMallocTrim(() => undefined)).toBeUndefined();
    const trim = () => true;
    const asked: string[] = [];
    expect(
      loadMallocTrim((id) => {
        asked.push(id);
        return { supported: true, trim };
      }),
    ).toBe(trim);
    expect(asked).toEqual([MALLOC_TRIM_PACKAGE]);
  });
});
