// Safe names for what clients send (spec-notes 4.3 step 4 and the duplicate-name rule of 4.3 step 6): a client's
// file name is never trusted; it becomes one path component that is valid on every platform Satchel ships on.
import { ValueError } from './errors.js';

export const MAX_NAME_CHARS = 200;
export const MAX_DUPLICATE_SUFFIX = 999;
/**
 * File systems limit one name to 255 bytes (ext4, APFS; NTFS to 255 UTF-16 units), and 200 CJK characters
 * are 600 bytes of UTF-8. A name keeps room below 255 for a duplicate suffix (`-999`) and an Office
 * sidecar's `.md`.
 */
export const MAX_NAME_BYTES = 240;
/** A suffix up to this long is kept whole when a name is shortened to fit (`.txt`, `.tar.gz` is two). */
const MAX_KEPT_SUFFIX_BYTES = 16;

const NOT_WORD_DOT_DASH = /[^\p{L}\p{N}_.-]/gu;
/** What replaces a character or a name that cannot stay as it is. */
export const SAFE_CHAR = '_';

// Names Windows maps to devices whatever their extension or case (`con.txt`, `Lpt1.tar.gz`, `COM¹`): a file
// so named cannot be created or opened there. Spaces before the first dot are dropped by Windows, so
// `CON .txt` is the device too. The superscript digits are on Windows' own list; CONIN$/CONOUT$ are the
// console devices. Refused on every platform so a workspace copied to Windows stays usable.
const WINDOWS_RESERVED = /^(?:CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|COM[0-9¹²³]|LPT[0-9¹²³]) *(?:\.|$)/iu;
// Windows drops trailing dots and spaces, so `notes.` would become `notes` (another file) and `...` nothing.
const TRAILING_DOTS_SPACES = /[. ]+$/u;
// C0, DEL, C1 and the Unicode line and paragraph separators: invisible, and a newline in a name forges lines
// wherever the name is printed.
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/gu;

/** Unicode-aware truncation by code points, as Python slices strings. */
export function truncateCodePoints(text: string, max: number): string {
  const points = Array.from(text);
  return points.length > max ? points.slice(0, max).join('') : text;
}

/** At most `maxBytes` of UTF-8, cut between code points. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let out = '';
  let used = 0;
  for (const point of text) {
    const size = Buffer.byteLength(point, 'utf8');
    if (used + size > maxBytes) break;
    out += point;
    used += size;
  }
  return out;
}

/** A name shortened to `maxBytes` of UTF-8, its suffix kept when that is short (`文…文.txt`). */
export function fitBytes(name: string, maxBytes = MAX_NAME_BYTES): string {
  if (Buffer.byteLength(name, 'utf8') <= maxBytes) return name;
  const [stem, suffix] = splitSuffix(name);
  const suffixBytes = Buffer.byteLength(suffix, 'utf8');
  if (suffix && suffixBytes <= MAX_KEPT_SUFFIX_BYTES && stem) return truncateUtf8(stem, maxBytes - suffixBytes) + suffix;
  return truncateUtf8(name, maxBytes);
}

/** True for a name Windows reserves for a device (see WINDOWS_RESERVED). */
export function isWindowsReserved(name: string): boolean {
  return WINDOWS_RESERVED.test(name);
}

/**
 * One path component made valid on every platform Satchel ships on: control characters become `_`, a
 * Windows device name is prefixed with `_`, and trailing dots and spaces become `_` each (same length,
 * so `a.` and `a..` stay distinct). Never longer than `maxChars` code points. The caller refuses empty and
 * dots-only names first: those are not file names at all.
 */
export function portableName(name: string, maxChars = MAX_NAME_CHARS): string {
  let safe = name.replace(CONTROL_CHARS, SAFE_CHAR);
  if (isWindowsReserved(safe)) safe = SAFE_CHAR + truncateCodePoints(safe, maxChars - 1);
  return safe.replace(TRAILING_DOTS_SPACES, (tail) => SAFE_CHAR.repeat(tail.length));
}

/**
 * spec-notes 4.3 step 4: final `/` component, non-word characters to `_`, 200 characters, then made portable
 * (portableName). Empty or dots only: null. A name that merely starts with dots (`..config.txt`) is ordinary.
 */
export function sanitizeName(raw: string, maxChars = MAX_NAME_CHARS): string | null {
  const last = raw.split('/').at(-1) ?? '';
  const safe = truncateCodePoints(last.replace(NOT_WORD_DOT_DASH, SAFE_CHAR), maxChars);
  return safe === '' || /^\.+$/.test(safe) ? null : portableName(fitBytes(safe), maxChars);
}

export function sanitizeFilename(raw: string): string {
  const safe = sanitizeName(raw);
  if (safe === null) throw new ValueError('Invalid filename');
  return safe;
}

/** Python's pathlib split: `a.tar.gz` → [`a.tar`, `.gz`]; `.bashrc` → [`.bashrc`, ``]. */
export function splitSuffix(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return [name, ''];
  return [name.slice(0, dot), name.slice(dot)];
}

/** `name`, then `<stem>-1<suffix>` … `<stem>-999<suffix>`. */
export function* candidateNames(name: string): Generator<string> {
  yield name;
  const [stem, suffix] = splitSuffix(name);
  for (let n = 1; n <= MAX_DUPLICATE_SUFFIX; n++) yield `${stem}-${n}${suffix}`;
}

// Bidirectional controls (LRE … RLO, LRI … PDI) and the marks that reorder text: in a name they make
// `report‮fdp.exe` read as `reportexe.pdf`. Shown names are the person's, but not a disguise.
// eslint-disable-next-line no-misleading-character-class
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
/** `\` separates folders on Windows: in a shown name it would read as a path. */
const BACKSLASH = /\\/gu;

/**
 * The name a person gave a file, as Satchel shows it, tells the agent and exports it (issue 38, item 4): their
 * name, spaces, dashes, accents and every script kept. Only what cannot be one file's name anywhere is replaced:
 * folders before the last `/` dropped (as sanitizeName does), `\`, control and bidirectional characters made `_`,
 * a Windows device name or a trailing dot or space made safe (portableName), cut to the stored name's length.
 * The file on disk keeps the specification's safe name (sanitizeName); this is what it is called. Null when
 * nothing is left (the stored name is refused for the same names).
 */
export function givenName(raw: string, maxChars = MAX_NAME_CHARS): string | null {
  const last = raw.split('/').at(-1) ?? '';
  const cleaned = last.replace(CONTROL_CHARS, SAFE_CHAR).replace(BIDI_CONTROLS, SAFE_CHAR).replace(BACKSLASH, SAFE_CHAR);
  const cut = truncateCodePoints(cleaned, maxChars);
  return cut.trim() === '' || /^\.+$/.test(cut) ? null : portableName(fitBytes(cut), maxChars);
}

/**
 * `given` with the duplicate suffix `placed` got over `safe` (`report.pdf` stored as `report-2.pdf`: the second
 * `Q3 report.pdf` is called `Q3 report-2.pdf`), so two files of one conversation are never called alike.
 */
export function givenWithSuffix(given: string, safe: string, placed: string): string {
  if (placed === safe) return given;
  let n = 0;
  for (const candidate of candidateNames(safe)) {
    if (candidate === placed) break;
    n++;
  }
  if (n === 0 || n > MAX_DUPLICATE_SUFFIX) return given;
  const [stem, suffix] = splitSuffix(given);
  return `${stem}-${n}${suffix}`;
}
