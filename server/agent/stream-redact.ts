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
//
// Linear cost on a long line (issue 21: 200,000 `a ` tokens took 30 s): the open piece is not judged from its
// start each time. A *restart point* `R` is a position of the open piece such that
//   - the output before it is final (R is at or before the stable cut) and no finding covers or starts at R;
//   - the character before R is a blank (then the line has at least RESTART_MIN_WORDS words before R) or a
//     character no rule's alphabet holds (a non-ASCII letter: then the line is no B9 form body);
//   - no `=`/`:` after a credential-like name is still reading its value at R (`afterOperatorValue`).
// Then nothing before R can change a rule at or after R: every look-back stops at the character before R (token
// boundaries, name runs, scheme runs, escapes), or passes its blanks only to ask "does a key start its line?"
// (indentation, a gutter and `export`: at most two words), and B9 needs a line without whitespace. So
// redact(line) is redact(line[0, R)) followed by what the rules give for line[R, …) preceded by one word, a space
// and the character before R: the open piece restarts as RESTART_CONTEXT + that character + line[R, …)
// (`restart`). Each judgement costs the text since the last restart (a word or two in prose), not the line; a line
// with no restart point (a value still open, an operator on every word) is judged at growing intervals past
// RESCAN_EVERY_PUSH_CHARS, so every character is judged a bounded number of times whatever the line's length.
// The property tests check the result against redact(whole) on long lines with planted secrets.
import { isBlank, isLineBreak, isSpace } from '../redact/chars.js';
import { findAll } from '../redact/engine.js';
import { apply, type Finding } from '../redact/finding.js';
import { SCHEME_CHAR } from '../redact/headers.js';
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
 * The open piece (the text since the line's last restart point, normally a word or two) is judged at every word
 * end while it is at most this long: word-by-word latency, at most this many characters judged per push.
 */
export const RESCAN_EVERY_PUSH_CHARS = 256;
/**
 * Past RESCAN_EVERY_PUSH_CHARS (no restart point: a value still open, operators on every word), it is judged again
 * only once it has grown by 1/2^this of its excess: every character is then judged a bounded number of times
 * (about 2^this + 1), whatever the line's length.
 */
export const RESCAN_SHIFT = 2;

/**
 * What the open piece starts with after a restart: one word and a space stand for the line before the restart
 * point (not the start of a line, has whitespace, ends in a blank that no escape, name or token runs across).
 */
export const RESTART_CONTEXT = 'x ';
/** Words a line must have before a restart point: a line-start look-back passes at most `export` and a gutter. */
export const RESTART_MIN_WORDS = 3;
/** Words between the last `=`/`:` and a restart point: an Authorization header reads a scheme and a credential. */
export const RESTART_OPERATOR_WORDS = 2;

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
    while (schemeEnd < e && SCHEME_CHAR.test(text[schemeEnd]!)) schemeEnd++;
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
  // Only a `[` can start a placeholder and only a `-` a marker: test those places, not every suffix.
  for (let at = Math.max(0, e - REDACTED_PRIVATE_KEY.length + 1); at < e; at++) {
    if (text.charCodeAt(at) === 0x5b && REDACTED_PRIVATE_KEY.startsWith(text.slice(at))) {
      m = at;
      break;
    }
  }
  for (let at = Math.max(0, e - BEGIN_LITERAL.length + 1); at < m; at++) {
    if (text.charCodeAt(at) === 0x2d && BEGIN_LITERAL.startsWith(text.slice(at))) {
      m = at;
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

/**
 * A character some rule needs in the text it masks: a vendor separator or capital (prefixes, AKIA, eyJ, SK, M/N
 * of Discord), an operator, `+` (phones), `&` (forms), an invisible character (B11). Text with none has no
 * finding, so its judgement needs no findAll().
 */
const RULE_CHAR = /[A-Z_.=:+&-]|[\x00-\x08\x0e-\x1b\x7f\u200b-\u200f\u202a-\u202e\u2060\ufeff]/;

/** A word of letters (only the first may be a capital), apostrophes inside, closing punctuation after. */
const PLAIN_WORD = /^(\p{L}(?:\p{Ll}|\p{Lo}|['’](?=\p{L}))*)([.,;!?)\]}"'’”]*)$/u;
const VENDOR_PREFIXES = VENDOR_SHAPES.map((shape) => shape.prefix);
const VENDOR_PREFIX_MAX = Math.max(...VENDOR_PREFIXES.map((prefix) => prefix.length));
/** Every prefix, every start of one (`prefix.startsWith(rest)` as a lookup), and their lengths. */
const VENDOR_PREFIX_SET = new Set(VENDOR_PREFIXES);
const VENDOR_PREFIX_STARTS = new Set(VENDOR_PREFIXES.flatMap((prefix) => Array.from({ length: prefix.length }, (_, n) => prefix.slice(0, n + 1))));
const VENDOR_PREFIX_LENGTHS = [...new Set(VENDOR_PREFIXES.map((prefix) => prefix.length))];
// finalWord looks for prefixes near a word's end only: that is sound while no prefix is itself a plain word's core.
for (const prefix of VENDOR_PREFIXES) if (/^\p{L}(?:\p{Ll}|\p{Lo})*$/u.test(prefix)) throw new Error(`Vendor prefix is a plain word: ${prefix}`);
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
  // A vendor token starts at the word's start or after a character outside [A-Za-z0-9] (a non-ASCII letter, an
  // apostrophe, and `_`/`-` since a key glued to a name is masked too: redact/vendors.ts vendorStart): from each
  // such place, the rest must neither be the start of a prefix nor hold a whole one.
  // A plain word holds no whole prefix in its letters (checked below where VENDOR_PREFIX_MAX is made): only the
  // places near the end of its core can start one, so a long word costs no more than a short one.
  for (let p = Math.max(0, core.length - VENDOR_PREFIX_MAX); p < word.length; p++) {
    if (p > 0 && /[A-Za-z0-9]/.test(word[p - 1]!)) continue;
    const rest = word.slice(p);
    if (VENDOR_PREFIX_STARTS.has(rest) || VENDOR_PREFIX_LENGTHS.some((n) => VENDOR_PREFIX_SET.has(rest.slice(0, n)))) return false;
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

/**
 * A character a restart point may follow. A blank (not U+001F, which B9's JavaScript `\s` does not count): every
 * look-back stops at it or passes it only to ask whether a key starts its line. Or a character outside every
 * rule's alphabet (not ASCII, not whitespace, not invisible, not half of a surrogate pair: CJK text, accented
 * letters, typographic quotes): every look-back stops at it.
 */
function restartAfter(c: number): 'blank' | 'letter' | null {
  if (isBlank(c)) return c === 0x1f ? null : 'blank';
  if (c < 0x80 || isSpace(c) || isLineBreak(c) || (c >= 0xd800 && c <= 0xdfff)) return null;
  if ((c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || c === 0x2060 || c === 0xfeff) return null;
  return 'letter';
}

/** True when `text` has at least `min` words (runs of non-blanks) before `end`. */
function hasWords(text: string, end: number, min: number): boolean {
  let count = 0;
  for (let i = 0; i < end; i++) {
    if (!isBlank(text.charCodeAt(i)) && (i === 0 || isBlank(text.charCodeAt(i - 1))) && ++count >= min) return true;
  }
  return false;
}

/** B9's form line starts with a name and `=` and has no JavaScript whitespace (redact/urls.ts FORM_LINE). */
const FORM_HEAD = /^[A-Za-z0-9_.%[\]-]+=/;

/**
 * The latest restart point of the judged open piece `text` at or before `cut` (see the top), or -1. `findings`
 * are the piece's resolved findings (text order); `restarted` says the line before `from` already passed the
 * line-start and form-line tests (it restarted before).
 */
export function restartPoint(text: string, cut: number, findings: readonly { start: number; end: number }[], from: number, restarted: boolean): number {
  let k = findings.length - 1;
  for (let r = Math.min(cut, text.length - 1); r > from; r--) {
    const c = text.charCodeAt(r);
    const kind = restartAfter(text.charCodeAt(r - 1));
    if (kind === null || isSpace(c) || c === 0x3d || c === COLON) continue;
    // Not inside a finding, nor at the start of one: a finding starting at `r` may be the rest of one that began
    // earlier (resolve() turns what runs past an accepted finding into SHORT_MASK from that finding's end).
    while (k >= 0 && findings[k]!.start > r) k--;
    if (k >= 0 && findings[k]!.end > r) {
      r = findings[k--]!.start; // look before it
      continue;
    }
    if (!afterOperatorValue(text, r)) continue;
    if (restarted) return r;
    // Before a blank, a key may still be at its line's start (after a gutter and `export`: two words). After a
    // letter nothing looks back past it, but the line could be a form body if it has no whitespace.
    if (kind === 'blank') return hasWords(text, r, RESTART_MIN_WORDS) ? r : -1;
    const before = text.slice(0, r);
    return JS_SPACE.test(before) || !FORM_HEAD.test(before) ? r : -1;
  }
  return -1;
}

/**
 * True when no `=`/`:` before `r` can read a value at or after `r`. Only an operator after a credential-like name
 * reads across a blank (the same test as stableEnd's), and it reads one word (the value, quoted or not) or, after
 * an Authorization name, two (scheme and credential): such an operator needs that many whole words after it
 * before the word `r` is in. A quoted value across `r` is a finding across it (refused), or no finding whichever
 * side is judged.
 */
function afterOperatorValue(text: string, r: number): boolean {
  let wordsAfter = 0;
  for (let i = r - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x3d || c === COLON) {
      const name = nameBefore(text, skipBlanksBack(text, i));
      if (CREDENTIAL_NAME.test(name) && wordsAfter < (AUTH_NAME.test(name) ? RESTART_OPERATOR_WORDS : 1)) return false;
    }
    if (isBlank(c)) continue;
    // A word ends at `i` (the word holding `r` itself does not count: it is not whole before `r`).
    if (i + 1 < r && isBlank(text.charCodeAt(i + 1))) wordsAfter++;
    // Every character of the words before `r` up to here was checked: an operator further back has enough words.
    if ((i === 0 || isBlank(text.charCodeAt(i - 1))) && wordsAfter >= RESTART_OPERATOR_WORDS) return true;
  }
  return true;
}

export class StreamRedactor {
  private mode: Mode = 'text';
  /**
   * text mode: the raw open piece after the last restart point (no line break, complete placeholder or BEGIN
   * marker in it). What is judged is `context + piece`; the positions below are in that text.
   */
  private piece = '';
  /** text mode: '' while the open piece starts at its line's start, RESTART_CONTEXT after a restart. */
  private context = '';
  /** text mode: the piece's last characters, where a marker split across pushes is looked for. */
  private tail = '';
  /** text mode: how much of the judged text's redaction has gone out (UTF-16 units of the output). */
  private sent = 0;
  /** text mode: the position the last judgement found stable, and the judged text's length then. */
  private stable = 0;
  private judgedAt = 0;
  /** text mode: a character after which a held word may have become final arrived since the last judgement. */
  private settling = false;
  /** key / suppress mode: the unsearched tail that may hold the start of a marker. */
  private carry = '';
  /**
   * Characters judged so far (the judged text's length, summed over every judgement): the cost measure the tests
   * bound, a few times the reply's length however long its lines.
   */
  judgedChars = 0;

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
   * block began, the raw text after its BEGIN marker (for key mode). Only `raw` and the piece's short tail are
   * searched: the open piece itself is never rescanned here, however long its line.
   */
  private append(raw: string): { text: string; leftover: string } {
    let out = '';
    let rest = raw;
    for (;;) {
      let lineBreak = 0;
      while (lineBreak < rest.length && !isLineBreak(rest.charCodeAt(lineBreak))) lineBreak++;
      const line = rest.slice(0, lineBreak);
      // The window: the piece's tail (no complete marker in it) and the new text up to the line break.
      const tail = this.tail;
      const window = tail + line;
      const placeholderAt = window.indexOf(REDACTED_PRIVATE_KEY);
      const begin = findPrivateKeyBegin(window);
      // Where a window position falls in the open piece + `line`.
      const base = this.piece.length - tail.length;
      if (begin !== null && (placeholderAt === -1 || begin.start < placeholderAt)) {
        const before = this.piece.slice(0, Math.max(0, base + begin.start)) + window.slice(tail.length, Math.max(tail.length, begin.start));
        out += this.finishPiece(before) + REDACTED_PRIVATE_KEY;
        this.mode = 'key';
        this.piece = '';
        this.tail = '';
        return { text: out, leftover: window.slice(begin.end) + rest.slice(lineBreak) };
      }
      if (placeholderAt !== -1) {
        const before = this.piece.slice(0, Math.max(0, base + placeholderAt)) + window.slice(tail.length, Math.max(tail.length, placeholderAt));
        out += this.finishPiece(before) + REDACTED_PRIVATE_KEY;
        rest = window.slice(placeholderAt + REDACTED_PRIVATE_KEY.length) + rest.slice(lineBreak);
        continue;
      }
      if (lineBreak < rest.length) {
        out += this.finishPiece(this.piece + line) + rest[lineBreak];
        rest = rest.slice(lineBreak + 1);
        continue;
      }
      this.piece += line;
      this.tail = window.slice(-(BEGIN_MARKER_MAX - 1));
      if (!this.settling && SETTLING.test(line)) this.settling = true;
      return { text: out, leftover: '' };
    }
  }

  /** The rest of a finished piece's redaction, and a fresh open piece. */
  private finishPiece(raw: string): string {
    const text = this.context + raw;
    this.judgedChars += text.length;
    const out = text === '' ? '' : apply(text, findAll(text)).slice(this.sent);
    this.reset();
    return out;
  }

  private reset(): void {
    this.piece = '';
    this.context = '';
    this.tail = '';
    this.sent = 0;
    this.stable = 0;
    this.judgedAt = 0;
    this.settling = false;
  }

  /** Text mode: what of the open piece has become final since the last call. */
  private release(): string {
    const length = this.context.length + this.piece.length;
    const held = length - this.stable;
    const grown = length - this.judgedAt;
    if (grown === 0) return '';
    const due = grown >= Math.max(1, (length - RESCAN_EVERY_PUSH_CHARS) >> RESCAN_SHIFT) && this.settling;
    if (!due && held <= MAX_HELD_CHARS) return '';
    const piece = this.context + this.piece;
    this.judgedAt = length;
    this.settling = false;
    // A placeholder or BEGIN marker still arriving may end the piece: judge the text before it as a piece.
    const judged = piece.slice(0, pendingBoundary(piece));
    this.judgedChars += judged.length;
    let cut = stableEnd(judged);
    // Findings can only move the cut back: nothing new can go out unless the cut passed the last one.
    const findings = cut > this.stable && RULE_CHAR.test(judged) ? findAll(judged) : [];
    for (const f of findings) {
      if (f.start < cut && f.end > cut) {
        cut = f.start;
        break;
      }
    }
    let out = '';
    if (cut > this.stable) {
      const final = findings.filter((f) => f.end <= cut);
      const prefix = apply(judged.slice(0, cut), final);
      out = prefix.slice(this.sent);
      this.sent = Math.max(this.sent, prefix.length);
      this.stable = cut;
      this.restart(judged, cut, findings);
    }
    if (this.context.length + this.piece.length - this.stable > MAX_HELD_CHARS) {
      out += SHORT_MASK;
      this.mode = 'suppress';
      this.carry = this.tail;
      this.reset();
    }
    return out;
  }

  /** Drops the settled text before the latest restart point at or before `cut` (see the top). */
  private restart(judged: string, cut: number, findings: readonly Finding[]): void {
    const from = this.context.length;
    const r = restartPoint(judged, cut, findings, from, this.context !== '');
    if (r === -1) return;
    // The character before the restart point stays: the rules at `r` see what they saw in the whole line.
    const context = RESTART_CONTEXT + judged[r - 1]!;
    const shift = r - context.length;
    const before = apply(judged.slice(0, r), findings.filter((f) => f.end <= r)).length;
    this.sent = this.sent - before + context.length;
    this.stable -= shift;
    this.judgedAt -= shift;
    this.piece = this.piece.slice(r - from);
    this.context = context;
    // No marker starts before a restart point (pendingBoundary holds the cut before it): the tail needs no more.
    if (this.tail.length > this.piece.length) this.tail = this.piece;
  }
}
