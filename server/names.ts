// Safe names for what clients send (section 4.3 step 4 and the duplicate-name rule of 4.3 step 6): a client's
// file name is never trusted; it becomes one path component that is valid on every platform Satchel ships on.
import { ValueError } from './errors.js';

export const MAX_NAME_CHARS = 200;
export const MAX_DUPLICATE_SUFFIX = 999;

const NOT_WORD_DOT_DASH = /[^\p{L}\p{N}_.-]/gu;

/** Unicode-aware truncation by code points, as Python slices strings. */
export function truncateCodePoints(text: string, max: number): string {
  const points = Array.from(text);
  return points.length > max ? points.slice(0, max).join('') : text;
}

/** 4.3 step 4: final `/` component, non-word characters to `_`, 200 characters. Empty or dots only: null. */
export function sanitizeName(raw: string, maxChars = MAX_NAME_CHARS): string | null {
  const last = raw.split('/').at(-1) ?? '';
  const safe = truncateCodePoints(last.replace(NOT_WORD_DOT_DASH, '_'), maxChars);
  return safe === '' || /^\.+$/.test(safe) ? null : safe;
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
