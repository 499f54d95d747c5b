// The two kinds of string a response may carry, told apart by type. Free text that people and
// agents wrote (titles, messages, transcripts, previews, tool output, error texts that quote input) is a
// `RedactedText`, and the only way to get one is to pass the text through the redactor. Values the server
// generated and must be able to read back (session ids, stored paths and file names, workspace roots, mime
// types, timestamps) are a `ServerValue`, sent exactly as they are: masking one breaks the app (an attachment
// `sk-learn-cheatsheet.pdf` sent back as `sk-lea...heet.pdf` would be refused as unknown).
//
// `PublicJson<T>` is what the JSON responder, the event streams and the MCP results accept: a value whose every
// string is one of the two (or a string literal the code itself wrote), so a handler cannot send a store record
// or a plain `string` without deciding, in a projection, which kind it is.
import { redact, redactDeep } from '../redact/index.js';

declare const redactedBrand: unique symbol;
declare const serverValueBrand: unique symbol;
declare const redactedJsonBrand: unique symbol;
declare const revealedBrand: unique symbol;

/** Free text that has been through the redactor. Made only by `redactText`. */
export type RedactedText = string & { readonly [redactedBrand]: true };

/** A string the server generated and reads back: sent verbatim, never redacted. Made only by `serverValue`. */
export type ServerValue = string & { readonly [serverValueBrand]: true };

/**
 * What a mask hid, for the person at the keyboard who asked to see it (issue 38 item 10). Made only by
 * projections/reveal.ts `revealedText`, which only handlers/reveal.ts imports (its test holds that).
 */
export type RevealedText = string & { readonly [revealedBrand]: true };

/** A value of unknown shape (tool arguments, a legacy field) with every string in it redacted. */
export type RedactedJson = { readonly [redactedJsonBrand]: true };

export function redactText(text: string): RedactedText {
  // A store written by another version may hold anything where a text belongs: it is redacted all the same.
  return (typeof text === 'string' ? redact(text) : redactDeep(text)) as RedactedText;
}

/**
 * The output of the stream redactor (redact/stream-redact.ts), which is redaction itself: every prefix it sends is
 * a prefix of `redact(whole reply)` (its property tests). Redacting its pieces again, each on its own, would mask
 * what the whole text does not (a piece `password: x` alone reads as a YAML line) and the live reply would differ
 * from the stored one.
 */
export function streamRedacted(piece: string): RedactedText {
  return piece as RedactedText;
}

export function serverValue(value: string): ServerValue {
  return value as ServerValue;
}

export function redactedJson(value: unknown): RedactedJson {
  return redactDeep(value) as RedactedJson;
}

/**
 * `T` as it may leave the server, else `never` where it may not: every wide `string` (one that is neither
 * RedactedText nor ServerValue) becomes `never`, so `value: T & PublicJson<T>` refuses it at compile time and
 * names the offending property. String literal types pass: the code wrote them (`'file'`, `'suppressed'`).
 */
export type PublicJson<T> = T extends RedactedText | ServerValue | RedactedJson | RevealedText
  ? T
  : T extends string
    ? string extends T
      ? never
      : T
    : T extends number | boolean | null | undefined
      ? T
      : T extends (...args: never[]) => unknown
        ? never
        : T extends readonly (infer U)[]
          ? readonly PublicJson<U>[]
          : T extends object
            ? { [K in keyof T]: PublicJson<T[K]> }
            : never;

/**
 * Copy into `out` the fields of `source` that its projection does not name, every string in them redacted: a
 * field added by a store of another version (or by a change that has not taught its projection yet) still
 * goes out, and as free text, the safe reading of a value nobody has classified. `skip` names fields that never go out.
 */
export function carryUnknown<T extends object>(out: T, source: object, skip?: ReadonlySet<string>): T {
  const extra = out as Record<string, unknown>;
  for (const [key, value] of Object.entries(source)) {
    if (!(key in out) && !skip?.has(key)) extra[key] = redactedJson(value);
  }
  return out;
}

/** `f(value)` when a stored field is present, else as it was (JSON leaves `undefined` out; a stored null stays). */
export function optional<T, R>(value: T | undefined, f: (value: T) => R): R | undefined {
  return value === undefined || value === null ? (value as undefined) : f(value);
}

/** One-line JSON of a projected value: what the event streams write (the JSON responder has its own). */
export function publicJsonLine<const T>(value: T & PublicJson<T>): string {
  return JSON.stringify(value);
}

/** A bound applied after the redactor (cut to N characters, a note appended) leaves the text redacted. */
export function cutRedacted(text: RedactedText, cut: (text: string) => string): RedactedText {
  return cut(text) as RedactedText;
}
