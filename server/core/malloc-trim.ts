// The native half of the idle release (issue 37, finding 8). After a busy spell glibc's main heap (`[heap]`) holds
// tens of MiB of freed chunks between live ones (socket reads, SQLite pages, the HTTP parser's buffers): free() only
// gives back what lies at the heap's top, so they stay resident however idle the server is. A 4-minute soak of 621
// turns kept 62.9 MiB of `[heap]` after idle, 54 MiB of it free; glibc's malloc_trim(0) gave back 50 MiB of it at
// once (docs/benchmarks.md, session 18). Node has no binding for it, so a one-function addon
// (native/satchel-malloc-trim, an optional dependency built at install) provides it. Where it did not build (no compiler,
// another C library) the server runs as before, without it.
import { createRequire } from 'node:module';

/** The addon's package (package.json optionalDependencies). */
export const MALLOC_TRIM_PACKAGE = 'satchel-malloc-trim';

/** Gives free heap pages back to the system; true when some were. */
export type Trim = () => boolean;

/** The addon's trim where it loads and calls glibc's, else undefined. `load` is the require to use (a test's own). */
export function loadMallocTrim(load: (id: string) => unknown = createRequire(import.meta.url)): Trim | undefined {
  try {
    const addon = load(MALLOC_TRIM_PACKAGE) as { trim?: unknown; supported?: unknown } | undefined;
    return addon?.supported === true && typeof addon.trim === 'function' ? (addon.trim as Trim) : undefined;
  } catch {
    return undefined;
  }
}
