// The value parsers of the settings table (table.ts). Each takes what a source holds (an environment or flag
// string, or any JSON value from stt.json) and returns the value, or undefined for "not usable, fall back". A
// parser that has something to say about a bad value says it through `warn`, naming the key and never the
// value (it may be a secret). Pure: no logging and no imports from the rest of the server, so any module,
// the logger included, can read a setting without an import cycle.
import os from 'node:os';
import path from 'node:path';

/** Where a raw value came from: argv values in the environment are JSON text, in stt.json JSON arrays. */
export type Source = 'env' | 'file' | 'flag';
export type Warn = (key: string, why: string) => void;
export interface ParseContext {
  /** The name the user wrote: the environment variable, the stt.json key, or the flag. */
  key: string;
  source: Source;
  warn: Warn;
}
export type Parser<T> = (raw: unknown, ctx: ParseContext) => T | undefined;

export const PROVIDER_NAMES = ['local', 'local_command', 'openai', 'groq', 'command'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
/** Longer than any sane transcription; guards against a typo like 1e12 turning a hang into forever. */
export const MAX_TIMEOUT_MS = 60 * 60_000;
/** A reported unknown provider name is cut to this length (it is echoed by the capability route). */
export const MAX_PROVIDER_NAME_LENGTH = 64;
export const MAX_PORT = 65535;

const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);
const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
/** `auto` (or empty) means "no explicit provider": use the automatic order. */
const AUTO_WORDS = new Set(['', 'auto']);
const LANGUAGE_PATTERN = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/;
const DECIMAL_PATTERN = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** `~` and `~/x` expand to the user's home; anything else is returned unchanged. */
export function expandUser(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(os.homedir(), p.slice(2));
  return p;
}

/** A trimmed string; blank is "unset". */
export const text: Parser<string> = (raw, { key, warn }) => {
  if (typeof raw !== 'string') {
    warn(key, 'expected a string');
    return undefined;
  }
  const value = raw.trim();
  return value === '' ? undefined : value;
};

/** A folder: trimmed, `~` expanded, absolute. */
export const dir: Parser<string> = (raw, ctx) => {
  const value = text(raw, ctx);
  return value === undefined ? undefined : path.resolve(expandUser(value));
};

/** Folders separated by the platform's path-list delimiter (`:` or `;`): each trimmed, `~` expanded, absolute;
 *  blank entries dropped, duplicates once. */
export const dirList: Parser<string[]> = (raw, ctx) => {
  const value = text(raw, ctx);
  if (value === undefined) return undefined;
  const dirs = value.split(path.delimiter).map((p) => p.trim()).filter((p) => p !== '').map((p) => path.resolve(expandUser(p)));
  return dirs.length === 0 ? undefined : [...new Set(dirs)];
};

/** A TCP port, 0 (any free port) to 65535; anything else is unusable. */
export const port: Parser<number> = (raw) => {
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  return Number.isInteger(n) && n >= 0 && n <= MAX_PORT ? n : undefined;
};

/** Any number above 0 that Number() reads (`1e2`, `0x10` included). */
export const positiveNumber: Parser<number> = (raw) => {
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

/** A plain decimal above 0 (`2`, `0.5`, `.5`); exponents, signs and hex are not plain. */
export const positiveDecimal: Parser<number> = (raw) => {
  const value = typeof raw === 'string' ? raw.trim() : '';
  if (!DECIMAL_PATTERN.test(value)) return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

/** On unless one of the off words: for switches whose every other value keeps the default on. */
export const unlessOffWord: Parser<boolean> = (raw) =>
  !(typeof raw === 'string' && FALSE_WORDS.has(raw.trim().toLowerCase()));

/** true/false, 1/0, yes/no, on/off (any case); a JSON boolean in stt.json. */
export const boolean: Parser<boolean> = (raw, { key, warn }) => {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string') {
    const word = raw.trim().toLowerCase();
    if (word === '') return undefined;
    if (FALSE_WORDS.has(word)) return false;
    if (TRUE_WORDS.has(word)) return true;
  }
  warn(key, 'expected true/false, 1/0, yes/no or on/off');
  return undefined;
};

/** The value lower-cased, as written (not trimmed); the reader decides what an unknown word means. */
export const word: Parser<string> = (raw) => (typeof raw === 'string' ? raw.toLowerCase() : undefined);

export type ProviderChoice = { provider?: ProviderName; unknownProvider?: string };

/** auto or one of PROVIDER_NAMES; an unknown name is kept (cut short) so the probe can report it. */
export const provider: Parser<ProviderChoice> = (raw, { key, warn }) => {
  if (typeof raw !== 'string') {
    warn(key, 'expected a string');
    return undefined;
  }
  const name = raw.trim().toLowerCase();
  if (AUTO_WORDS.has(name)) return {};
  if ((PROVIDER_NAMES as readonly string[]).includes(name)) return { provider: name as ProviderName };
  warn(key, `unknown provider (expected auto, ${PROVIDER_NAMES.join(', ')}); speech-to-text is unavailable`);
  return { unknownProvider: name.slice(0, MAX_PROVIDER_NAME_LENGTH) };
};

/** A command line: JSON text in the environment, a JSON array in stt.json; the first item is the program. */
export const argv: Parser<string[]> = (raw, { key, source, warn }) => {
  let value = raw;
  if (source !== 'file') {
    if (typeof raw !== 'string' || raw.trim() === '') return undefined;
    try {
      value = JSON.parse(raw);
    } catch {
      warn(key, 'expected a JSON array of strings, e.g. ["whisper-cli","{input}"]');
      return undefined;
    }
  }
  if (!Array.isArray(value) || value.length === 0 || !value.every((a) => typeof a === 'string') || value[0] === '') {
    warn(key, 'expected a non-empty array of strings whose first item is the program');
    return undefined;
  }
  // Kept (a command may find its input another way), but almost always a mistake worth a line in the log.
  if (!value.some((arg: string) => arg.includes('{input}'))) warn(key, 'no argument contains {input}');
  return value as string[];
};

/** An http(s) URL without trailing slashes. */
export const url: Parser<string> = (raw, ctx) => {
  const value = text(raw, ctx);
  if (value === undefined) return undefined;
  try {
    const parsed = new URL(value);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return value.replace(/\/+$/, '');
  } catch {
    // Reported below.
  }
  ctx.warn(ctx.key, 'expected an http(s) URL');
  return undefined;
};

/** A BCP-47-ish language code: `en`, `pt-BR`. */
export const language: Parser<string> = (raw, ctx) => {
  const value = text(raw, ctx);
  if (value === undefined) return undefined;
  if (LANGUAGE_PATTERN.test(value)) return value;
  ctx.warn(ctx.key, 'expected a language code such as en or pt-BR');
  return undefined;
};

/** Whole milliseconds, 1 to MAX_TIMEOUT_MS. */
export const timeoutMs: Parser<number> = (raw, { key, warn }) => {
  if (typeof raw === 'string' && raw.trim() === '') return undefined;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : NaN;
  if (Number.isInteger(n) && n > 0 && n <= MAX_TIMEOUT_MS) return n;
  warn(key, `expected whole milliseconds between 1 and ${MAX_TIMEOUT_MS}`);
  return undefined;
};
