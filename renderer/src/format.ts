// Human-readable sizes and durations. Units are binary (1 MB = 1,048,576 bytes), like the server's cap.
const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;
const STEP = 1024;

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '?';
  if (bytes < STEP) return `${Math.round(bytes)} B`;
  let value = bytes;
  let unit = 0;
  while (value >= STEP && unit < UNITS.length - 1) {
    value /= STEP;
    unit += 1;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** "loaded / total", both in the total's unit so the pair reads evenly ("1.2 MB / 4.0 MB"). */
export function formatProgress(loaded: number, total: number): string {
  if (total < STEP) return `${Math.round(loaded)} B / ${Math.round(total)} B`;
  let unit = 0;
  let scale = 1;
  while (total / scale >= STEP && unit < UNITS.length - 1) {
    scale *= STEP;
    unit += 1;
  }
  return `${(loaded / scale).toFixed(1)} ${UNITS[unit]} / ${(total / scale).toFixed(1)} ${UNITS[unit]}`;
}

/** m:ss for the recording clock. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}

// Made once: toLocaleTimeString/toLocaleDateString with options build a formatter on every call, which cost a
// long conversation's scroll frames more than drawing its rows did (bench/thread-scroll.mjs, a CPU profile).
let clock: Intl.DateTimeFormat | null = null;
let calendar: Intl.DateTimeFormat | null = null;

/** "05:02 PM" or "17:02", as the person's locale writes a time of day: the one way every time in the page reads. */
export function timeOfDay(d: Date): string {
  return (clock ??= new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' })).format(d);
}

export function formatTime(iso: string | number | undefined): string {
  if (iso === undefined) return '';
  const d = typeof iso === 'number' ? new Date(iso < 1e12 ? iso * 1000 : iso) : new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const now = new Date();
  const sameDay = d.toDateString() === now.toDateString();
  return sameDay
    ? timeOfDay(d)
    : (calendar ??= new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' })).format(d);
}

const ARCHIVE_SUFFIXES = ['.zip', '.tar', '.tar.gz', '.tgz', '.tar.bz2', '.tbz2', '.tar.xz', '.txz'];

/** The archive suffixes the server extracts (spec 4.4), case-insensitive. */
export function isArchiveName(name: string): boolean {
  const lower = name.toLowerCase();
  return ARCHIVE_SUFFIXES.some((s) => lower.endsWith(s));
}

export function isMarkdownName(name: string): boolean {
  return /\.(md|markdown)$/i.test(name);
}
