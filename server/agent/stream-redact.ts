// Redaction of text that arrives in pieces (a reply's token and reasoning frames). Contract: what has gone out at
// any moment is a prefix of redact(the whole reply), whatever the pieces; after flush() it is all of it.
//
// Why that can be done without waiting for the end: redact(text) is the text cut into *pieces* at line breaks,
// at private-key blocks and at `[REDACTED PRIVATE KEY]` placeholders, each piece redacted on its own (no rule but
// a key block crosses a line break: server/redact/chars.ts isLineBreak, and the `npm run redact` tests hold
// redact(whole) == its lines one by one). So every finished piece goes out exactly, a key block goes out as
// REDACTED_PRIVATE_KEY the moment its BEGIN line is complete, and only the open piece (the current line) waits.
//
// In the open piece `L`, the output before a raw position `c` is final once no rule can still change it,
// whatever follows. Rules whose scans never cross whitespace (vendor tokens, AWS, JWT, Discord, Zhipu, Twilio,
// Telegram, phone numbers, URLs, tokens split by invisible characters) decide a finished word with the
// whitespace after it; the rest are anchored at a `=` or `:` after a credential-like name and read a value
// that may span words. `stableEnd` holds back from the earliest of:
//   - the trailing word and the blanks before it (`GITHUB_TOKEN = x` drops those blanks), unless the word is a
//     plain word no continuation can turn into (part of) a token (`finalWord`);
//   - the name's end of every `=`/`:` after a credential-like name whose value is not settled yet: no value,
//     an unclosed quote, a value word not yet ended, an Authorization scheme without its credential, a YAML
//     value with nothing after it yet (`password: plainword` is masked only if the line ends or a comment
//     follows);
//   - the piece after its first `=` while it has no whitespace (it may still be a form body `k=v&k=v`, B9);
//   - a `[REDACTED PRIVATE KEY]` or `-----BEGIN … PRIVATE KEY-----` still arriving: the piece may end there, so
//     the text before it is judged as a piece that may end at that point;
//   - any finding of the open piece that runs across the cut.
// The hold is a superset of what the rules can still change (names are matched by keyword, values bounded by
// the first whitespace or their closing quote), so it errs towards holding; the property test in
// stream-redact.test.ts checks the contract for every rule family and every chunking.
import { isBlank, isLineBreak, isSpace } from '../redact/chars.js';
import { findAll } from '../redact/engine.js';
import { apply } from '../redact/finding.js';
import { findPrivateKeyBegin, findPrivateKeyEnd, PEM_LABEL_MAX } from '../redact/pem.js';
import { REDACTED_PRIVATE_KEY, SHORT_MASK, VENDOR_SHAPES } from '../redact/index.js';
import { streamRedacted, type RedactedText } from '../projections/brand.js';

/**
 * Raw characters of one line held back at most. Past it the line's held text never goes out: a SHORT_MASK
 * stands for all of it up to the line's end (a key block starting there is still cut out whole). Safe because it
 * only ever shows less than redact() would: the stable prefix is exactly redact's, the rest is a mask. It is
 * reached only by a construct still open after this many characters (one 8 KiB word such as a data URI, a quoted
 * value not closed for 8 KiB); the stored reply and the `done` frame are redacted whole and show that line fully.
 */
export const MAX_HELD_CHARS = 8192;
/**
 * The open piece is re-judged (a redaction of all of it) only when it has grown by 1/2^this of its length since
 * the last time: linear work on a very long line, and every word on a line shorter than 2^this words.
 */
export const RESCAN_SHIFT = 8;

const BEGIN_LITERAL = '-----BEGIN';
const END_LITERAL = '-----END';
/** Longest marker pem.ts accepts: `-----BEGIN` + label + `PRIVATE KEY BLOCK-----`. */
const BEGIN_MARKER_MAX = BEGIN_LITERAL.length + PEM_LABEL_MAX + 'PRIVATE KEY BLOCK-----'.length;
const END_MARKER_MAX = END_LITERAL.length + PEM_LABEL_MAX + 'PRIVATE KEY BLOCK-----'.length;
/** What may follow `-----BEGIN` in a marker still arriving (label, `PRIVATE KEY`, ` BLOCK`, dashes). */
const MARKER_TAIL = /^[A-Z0-9 -]*$/;
/**
 * Every name the `=`/`:` rules act on contains one of these (A4 keywords, B3 identifiers, config keys, JSON and
 * Python fields, YAML keys, Authorization, API-key headers, Azure's AccountKey/SharedAccessSignature).
 */
const CREDENTIAL_NAME = /key|pass|pw|token|secret|credential|auth|bearer|signature/i;
const AUTH_NAME = /auth/i;
/** B9's form body is a line without JavaScript whitespace (redact/urls.ts FORM_LINE). */
const JS_SPACE = /\s/;
/** Characters after which a held word or value may have become final. */
const SETTLING = /[\s\x1c-\x1f\x85"'`\p{L}.,;!?)\]}’”]/u;

const BACKSLASH = 0x5c;
const COLON = 0x3a;
const NAME_CHAR = /[A-Za-z0-9_.-]/;

function isQuote(c: number): boolean {
  return c === 0x22 || c === 0x27 || c === 0x60;
}

function isHeaderQuote(c: number): boolean {
  return c === 0x22 || c === 0x27;
}

function skipBlanks(text: string, from: number): number {
  let i = from;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  return i;
}

function skipBlanksBack(text: string, to: number): number {
  let i = to;
  while (i > 0 && isBlank(text.charCodeAt(i - 1))) i--;
  return i;
}

/** The first whitespace at or after `from` (text.length if none yet): every unquoted reading ends by then. */
function nextSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && !isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The closing quote of the quote at `open` (backslash escapes honoured), or -1 while it may still come. */
function closingQuote(text: string, open: number): number {
  const quote = text.charCodeAt(open);
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === quote) return i;
    if (c === BACKSLASH) i++;
  }
  return -1;
}

/** The backslash of the closing `\"` of escaped JSON opened at `open` (a backslash), or -1. */
function closingEscapedQuote(text: string, open: number): number {
  const quote = text.charCodeAt(open + 1);
  for (let i = open + 2; i < text.length - 1; i++) {
    if (text.charCodeAt(i) === BACKSLASH) {
      if (text.charCodeAt(i + 1) === quote) return i;
      i++;
    }
  }
  return -1;
}

/** The name before `nameEnd` as the `=`/`:` rules see it, past a closing quote of a quoted key (`\"key\"`). */
function nameBefore(text: string, nameEnd: number): string {
  let end = nameEnd;
  if (end > 0 && isHeaderQuote(text.charCodeAt(end - 1))) end--;
  if (end > 0 && text.charCodeAt(end - 1) === BACKSLASH) end--;
  let start = end;
  while (start > 0 && NAME_CHAR.test(text[start - 1]!)) start--;
  return text.slice(start, end);
}

/**
 * True when nothing anchored at the operator `op` can change whatever follows `text`: its value (quoted or not)
 * has ended inside `text`, an Authorization header has its credential, a YAML value has something after it.
 */
function settled(text: string, op: number, name: string): boolean {
  const e = text.length;
  const from = skipBlanks(text, op + 1);
  if (from >= e) return false;
  // Unquoted readings (values, header credentials, Azure, scheme words) all end by the first whitespace.
  const wordEnd = nextSpace(text, from);
  if (wordEnd >= e) return false;
  let valueEnd = wordEnd;
  // Quoted readings: at `from`, after a Python bytes `b`, or an escaped quote of escaped JSON.
  let q = from;
  if (text.charCodeAt(q) === 0x62 && q + 1 < e && isQuote(text.charCodeAt(q + 1))) q++;
  const c = text.charCodeAt(q);
  if (isQuote(c)) {
    const close = closingQuote(text, q);
    if (close === -1) return false;
    valueEnd = Math.max(valueEnd, close + 1);
  } else if (c === BACKSLASH && q + 1 < e && isHeaderQuote(text.charCodeAt(q + 1))) {
    const close = closingEscapedQuote(text, q);
    if (close === -1) return false;
    valueEnd = Math.max(valueEnd, close + 2);
  }
  if (AUTH_NAME.test(name)) {
    // `Authorization: <scheme> <credential>`: a scheme word followed by blanks needs the next word.
    let start = from;
    if (isHeaderQuote(text.charCodeAt(start))) start++;
    else if (text.charCodeAt(start) === BACKSLASH && isHeaderQuote(text.charCodeAt(start + 1))) start += 2;
    let schemeEnd = start;
    while (schemeEnd < e && /[A-Za-z0-9-]/.test(text[schemeEnd]!)) schemeEnd++;
    if (schemeEnd >= e) return false;
    if (schemeEnd > start && isBlank(text.charCodeAt(schemeEnd))) {
      const after = skipBlanks(text, schemeEnd);
      if (after >= e) return false;
      const next = text.charCodeAt(after);
      if (!isSpace(next) && !isHeaderQuote(next) && nextSpace(text, after) >= e) return false;
    }
  }
  // YAML `key: value` is masked only when the line ends (or a comment begins) after the value.
  if (text.charCodeAt(op) === COLON && skipBlanks(text, valueEnd) >= e) return false;
  return true;
}

/** Where a placeholder or a private-key BEGIN marker may still be arriving in `text` (text.length if nowhere). */
function pendingBoundary(text: string): number {
  const e = text.length;
  let m = e;
  for (let k = Math.min(REDACTED_PRIVATE_KEY.length - 1, e); k > 0; k--) {
    if (REDACTED_PRIVATE_KEY.startsWith(text.slice(e - k))) {
      m = e - k;
      break;
    }
  }
  for (let k = Math.min(BEGIN_LITERAL.length - 1, e); k > 0; k--) {
    if (BEGIN_LITERAL.startsWith(text.slice(e - k))) {
      m = Math.min(m, e - k);
      break;
    }
  }
  for (let at = text.indexOf(BEGIN_LITERAL, Math.max(0, e - BEGIN_MARKER_MAX)); at !== -1 && at < m; at = text.indexOf(BEGIN_LITERAL, at + 1)) {
    if (MARKER_TAIL.test(text.slice(at + BEGIN_LITERAL.length))) {
      m = at;
      break;
    }
  }
  return m;
}

/** A word of letters (only the first may be a capital), apostrophes inside, closing punctuation after. */
const PLAIN_WORD = /^(\p{L}(?:\p{Ll}|\p{Lo}|['’](?=\p{L}))*)([.,;!?)\]}"'’”]*)$/u;
const VENDOR_PREFIXES = VENDOR_SHAPES.map((shape) => shape.prefix);
/** Lower-case hex letters up to the word's end from a token boundary: the start of a Zhipu key (B2). */
const HEX_TAIL = /(?:^|[^A-Za-z])[a-f]+$/;

/**
 * True when no text appended to the trailing word `word` can make a rule mask any of its characters (nor the
 * blanks before it, which only a `=` right after them drops). Every token rule needs, somewhere in the word from
 * a token boundary on, a vendor prefix (or its start), `eyJ` (JWTs need no boundary: a word ending in `e`/`ey`
 * may be the start of one), `AKIA`/`ASIA`/`SK`/`SG.`/`GR…`/`PMAK`/`AGE` (a lone capital may begin one), a
 * Discord token's leading `M`/`N` followed by letters, or a run of lower-case hex (Zhipu), the last two also
 * with a dot after them; digits, `_`, `-`,
 * `=`, `:` and the other characters rules read are not in a plain word.
 */
export function finalWord(word: string): boolean {
  const m = PLAIN_WORD.exec(word);
  if (m === null) return false;
  const [, core = '', trail = ''] = m;
  if (word.includes('eyJ') || /e(?:y)?$/.test(word)) return false;
  if (trail === '' && core.length === 1 && /[A-Z]/.test(core)) return false;
  // Discord tokens and Zhipu keys go on after a dot.
  if ((trail === '' || trail.startsWith('.')) && (/^[MN]/.test(core) || HEX_TAIL.test(core))) return false;
  // A vendor token starts at the word's start or after a character outside [A-Za-z0-9_-] (a non-ASCII letter,
  // an apostrophe): from each such place, the rest must neither be the start of a prefix nor hold a whole one.
  for (let p = 0; p < word.length; p++) {
    if (p > 0 && /[A-Za-z0-9_-]/.test(word[p - 1]!)) continue;
    const rest = word.slice(p);
    if (VENDOR_PREFIXES.some((prefix) => prefix.startsWith(rest) || rest.startsWith(prefix))) return false;
  }
  return true;
}

/** Raw position in the open piece `text` before which its redaction can no longer change (see the top). */
export function stableEnd(text: string): number {
  let cut = text.length;
  while (cut > 0 && !isSpace(text.charCodeAt(cut - 1))) cut--;
  if (cut === text.length || !finalWord(text.slice(cut))) {
    while (cut > 0 && isSpace(text.charCodeAt(cut - 1))) cut--;
  } else {
    cut = text.length;
  }
  // B9 masks only values after a `=` of a line without whitespace.
  if (!JS_SPACE.test(text)) {
    const eq = text.indexOf('=');
    if (eq !== -1) cut = Math.min(cut, eq + 1);
  }
  const operators = /[=:]/g;
  for (let m = operators.exec(text); m !== null && m.index < cut; m = operators.exec(text)) {
    const nameEnd = skipBlanksBack(text, m.index);
    const name = nameBefore(text, nameEnd);
    if (CREDENTIAL_NAME.test(name) && !settled(text, m.index, name)) {
      // Operators further on have their names further on too: this is the earliest hold.
      cut = Math.min(cut, nameEnd);
      break;
    }
  }
  return cut;
}

type Mode = 'text' | 'key' | 'suppress';

export class StreamRedactor {
  private mode: Mode = 'text';
  /** text mode: the raw open piece (no line break, complete placeholder or BEGIN marker in it). */
  private piece = '';
  /** text mode: how much of the open piece's redaction has gone out (UTF-16 units of the output). */
  private sent = 0;
  /** text mode: the raw position the last judgement found stable, and the piece's length then. */
  private stable = 0;
  private judgedAt = 0;
  /** key / suppress mode: the unsearched tail that may hold the start of a marker. */
  private carry = '';

  /** The redacted text to send now for `piece` (possibly '' while something is held). */
  push(piece: string): RedactedText {
    let out = '';
    let rest = piece;
    while (rest !== '') {
      if (this.mode === 'key') {
        const buffer = this.carry + rest;
        const end = findPrivateKeyEnd(buffer);
        if (end === null) {
          this.carry = buffer.slice(-(END_MARKER_MAX - 1));
          return streamRedacted(out);
        }
        this.mode = 'text';
        this.carry = '';
        rest = buffer.slice(end.end);
        continue;
      }
      if (this.mode === 'suppress') {
        const buffer = this.carry + rest;
        let lineEnd = 0;
        while (lineEnd < buffer.length && !isLineBreak(buffer.charCodeAt(lineEnd))) lineEnd++;
        const begin = findPrivateKeyBegin(buffer.slice(0, lineEnd));
        if (begin !== null) {
          out += REDACTED_PRIVATE_KEY;
          this.mode = 'key';
          this.carry = '';
          rest = buffer.slice(begin.end);
        } else if (lineEnd < buffer.length) {
          out += buffer[lineEnd];
          this.mode = 'text';
          this.carry = '';
          rest = buffer.slice(lineEnd + 1);
        } else {
          this.carry = buffer.slice(-(BEGIN_MARKER_MAX - 1));
          return streamRedacted(out);
        }
        continue;
      }
      const { text, leftover } = this.append(rest);
      out += text;
      rest = leftover;
    }
    if (this.mode === 'text') out += this.release();
    return streamRedacted(out);
  }

  /** The reply ended (done, cancelled, failed): whatever is held goes out, redacted. */
  flush(): RedactedText {
    const out = this.mode === 'text' ? this.finishPiece(this.piece) : '';
    this.mode = 'text';
    this.piece = '';
    this.carry = '';
    return streamRedacted(out);
  }

  /**
   * Text mode: add `raw` to the open piece and send every piece it finishes. Returns what to send and, when a key
   * block began, the raw text after its BEGIN marker (for key mode).
   */
  private append(raw: string): { text: string; leftover: string } {
    const searchFrom = this.piece.length;
    this.piece += raw;
    let out = '';
    let from = searchFrom;
    for (;;) {
      const piece = this.piece;
      let lineBreak = from;
      while (lineBreak < piece.length && !isLineBreak(piece.charCodeAt(lineBreak))) lineBreak++;
      const head = piece.slice(0, lineBreak);
      const placeholderAt = head.indexOf(REDACTED_PRIVATE_KEY, Math.max(0, from - REDACTED_PRIVATE_KEY.length + 1));
      const begin = findPrivateKeyBegin(head, Math.max(0, from - BEGIN_MARKER_MAX + 1));
      if (begin !== null && (placeholderAt === -1 || begin.start < placeholderAt)) {
        out += this.finishPiece(piece.slice(0, begin.start)) + REDACTED_PRIVATE_KEY;
        this.mode = 'key';
        this.piece = '';
        return { text: out, leftover: piece.slice(begin.end) };
      }
      if (placeholderAt !== -1) {
        out += this.finishPiece(piece.slice(0, placeholderAt)) + REDACTED_PRIVATE_KEY;
        this.piece = piece.slice(placeholderAt + REDACTED_PRIVATE_KEY.length);
      } else if (lineBreak < piece.length) {
        out += this.finishPiece(head) + piece[lineBreak];
        this.piece = piece.slice(lineBreak + 1);
      } else {
        return { text: out, leftover: '' };
      }
      from = 0;
    }
  }

  /** The rest of a finished piece's redaction, and a fresh open piece. */
  private finishPiece(raw: string): string {
    const out = raw === '' ? '' : apply(raw, findAll(raw)).slice(this.sent);
    this.sent = 0;
    this.stable = 0;
    this.judgedAt = 0;
    return out;
  }

  /** Text mode: what of the open piece has become final since the last call. */
  private release(): string {
    const piece = this.piece;
    const held = piece.length - this.stable;
    const grown = piece.length - this.judgedAt;
    if (grown === 0) return '';
    const due = grown >= Math.max(1, piece.length >> RESCAN_SHIFT) && SETTLING.test(piece.slice(this.judgedAt));
    if (!due && held <= MAX_HELD_CHARS) return '';
    this.judgedAt = piece.length;
    // A placeholder or BEGIN marker still arriving may end the piece: judge the text before it as a piece.
    const judged = piece.slice(0, pendingBoundary(piece));
    let cut = stableEnd(judged);
    // Findings can only move the cut back: nothing new can go out unless the cut passed the last one.
    const findings = cut > this.stable ? findAll(judged) : [];
    for (const f of findings) {
      if (f.start < cut && f.end > cut) {
        cut = f.start;
        break;
      }
    }
    let out = '';
    if (cut > this.stable) {
      const prefix = apply(judged.slice(0, cut), findings.filter((f) => f.end <= cut));
      out = prefix.slice(this.sent);
      this.sent = Math.max(this.sent, prefix.length);
      this.stable = cut;
    }
    if (piece.length - this.stable > MAX_HELD_CHARS) {
      out += SHORT_MASK;
      this.mode = 'suppress';
      this.carry = piece.slice(-(BEGIN_MARKER_MAX - 1));
      this.piece = '';
      this.sent = 0;
      this.stable = 0;
      this.judgedAt = 0;
    }
    return out;
  }
}
