// Markdown backslash escapes (`\_`, `\*`, `\[`, …). An Office document reaches every outlet as Markdown
// (office/markdown.ts escapes each `_`, `*`, `[`, …), so `ghp_…` is stored as `ghp\_…` and `"api_key"` as
// `"api\_key"`: read literally, no vendor or field rule sees them, and the key left whole through the preview,
// MCP and search (issue 33, finding 5). Redaction must see the text a person sees, so where a text holds such
// escapes every rule also runs on a copy with the escaping backslashes removed, and what it finds is mapped
// back to the original span (the backslashes inside it included). Its mask, made from the characters a person
// sees, is escaped again the way the converter escapes text, so the Markdown still reads as that mask.
//
// Not read through: `\"`, `\'`, `\/` and `\\` (and letters: `\n`, `\u…`), which are escapes of JSON, shell and
// code strings that the rules already read as such; `\\` is kept as a pair so `\\_` stays a backslash and a
// `_`. Reading through the redactor (rather than redacting in the converter before escaping) keeps what the
// agent is sent from an Office file the same as from a text file, and covers every Markdown text, a .md
// attachment or an agent's reply among them.
import { BACKSLASH, asciiTable, inTable } from './chars.js';
import type { Finding } from './finding.js';

/** ASCII punctuation Markdown lets a backslash escape (CommonMark 2.4), without the string escapes named above. */
const READ_THROUGH = asciiTable(/[!#$%&()*+,\-.:;<=>?@[\]^_`{|}~]/);
/**
 * What the Office converter escapes inline (office/markdown.ts INLINE_SPECIAL, and `|` in table cells), but the
 * backslash: unescapeMarkdown keeps `\\` as two characters, so a mask's backslash written as `\\` would read back
 * as two and the second pass would mask the mask again (redacting twice must change nothing; found by
 * redact.fuzz.test.ts: `Authorization: Bearer \***Authorization\😀`).
 */
const ESCAPE_AGAIN = /[`*_[\]<|]/g;

/** True when `text` holds at least one escape this module reads through. */
export function hasMarkdownEscape(text: string): boolean {
  for (let i = text.indexOf('\\'); i !== -1 && i < text.length - 1; i = text.indexOf('\\', i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (next === BACKSLASH) {
      i++;
      continue;
    }
    if (inTable(READ_THROUGH, next)) return true;
  }
  return false;
}

export interface Unescaped {
  /** The text as Markdown shows it: each read-through escape replaced by its character. */
  copy: string;
  /** Unit i of `copy` stands for the original's [from[i], to[i]): two units for an escape, else one. */
  from: Int32Array;
  to: Int32Array;
}

/** `text` without its read-through escapes, and where each character came from. */
export function unescapeMarkdown(text: string): Unescaped {
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  const pieces: string[] = [];
  let n = 0;
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const escape = text.charCodeAt(i) === BACKSLASH && i + 1 < text.length;
    const next = escape ? text.charCodeAt(i + 1) : 0;
    if (escape && next !== BACKSLASH && inTable(READ_THROUGH, next)) {
      // The escaped character stands for the pair: a span that starts or ends at it takes its backslash too.
      pieces.push(text.slice(copied, i));
      copied = i + 1;
      from[n] = i;
      to[n++] = i + 2;
      i++;
      continue;
    }
    from[n] = i;
    to[n++] = i + 1;
    if (escape && next === BACKSLASH) {
      // `\\` is a backslash shown: kept as it is, and the character after it is no escape of it.
      from[n] = i + 1;
      to[n++] = i + 2;
      i++;
    }
  }
  pieces.push(text.slice(copied));
  return { copy: pieces.join(''), from: from.subarray(0, n), to: to.subarray(0, n) };
}

/** A mask written back into Markdown text: its special characters escaped as the converter escapes them. */
export function escapeAgain(mask: string): string {
  return mask.replace(ESCAPE_AGAIN, '\\$&');
}

/**
 * The copy's findings on the original text. A finding whose span holds an escape gets its mask escaped again
 * (the span is Markdown text); one without keeps its mask as it is, exactly as the same span of a plain text.
 */
export function mapBack(unescaped: Unescaped, findings: readonly Finding[]): Finding[] {
  const { from, to } = unescaped;
  return findings.map((f) => {
    const start = f.start < from.length ? from[f.start]! : (to[from.length - 1] ?? 0);
    const end = f.end > f.start ? to[f.end - 1]! : start;
    if (end - start === f.end - f.start) return { ...f, start, end };
    const replacement = f.text;
    return { ...f, start, end, text: () => escapeAgain(typeof replacement === 'string' ? replacement : replacement()) };
  });
}
