// The line judge of StreamRedactor (stream-redact.ts): how much of a line's open piece has a redaction that can
// no longer change, whatever follows.
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
import { isBlank, isSpace } from './chars.js';
import { SCHEME_CHAR } from './headers.js';
import { PEM_LABEL_MAX } from './pem.js';
import { REDACTED_PRIVATE_KEY } from './mask.js';
import { VENDOR_SHAPES } from './vendors.js';
import { closesQuote, isSmartQuote, skipBlanks, skipBlanksBack } from './values.js';

const BEGIN_LITERAL = '-----BEGIN';
const END_LITERAL = '-----END';
/** Longest marker pem.ts accepts: `-----BEGIN` + label + `PRIVATE KEY BLOCK-----`. */
export const BEGIN_MARKER_MAX = BEGIN_LITERAL.length + PEM_LABEL_MAX + 'PRIVATE KEY BLOCK-----'.length;
export const END_MARKER_MAX = END_LITERAL.length + PEM_LABEL_MAX + 'PRIVATE KEY BLOCK-----'.length;
/** What may follow `-----BEGIN` in a marker still arriving (label, `PRIVATE KEY`, ` BLOCK`, dashes). */
const MARKER_TAIL = /^[A-Z0-9 -]*$/;
/**
 * Every name the `=`/`:` rules act on contains one of these (A4 keywords, B3 identifiers, config keys, JSON and
 * Python fields, YAML keys, Authorization, API-key headers, Azure's AccountKey/SharedAccessSignature).
 */
export const CREDENTIAL_NAME = /key|pass|pw|token|secret|credential|auth|bearer|signature/i;
export const AUTH_NAME = /auth/i;
/** B9's form body is a line without JavaScript whitespace (redact/urls.ts FORM_LINE). */
export const JS_SPACE = /\s/;
/** Characters after which a held word or value may have become final. */
export const SETTLING = /[\s\x1c-\x1f\x85"'`\p{L}.,;!?)\]}’”]/u;

const BACKSLASH = 0x5c;
export const COLON = 0x3a;
const NAME_CHAR = /[A-Za-z0-9_.-]/;

function isQuote(c: number): boolean {
  return c === 0x22 || c === 0x27 || c === 0x60 || isSmartQuote(c);
}

function isHeaderQuote(c: number): boolean {
  return c === 0x22 || c === 0x27;
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
    if (closesQuote(quote, c)) return i;
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
export function nameBefore(text: string, nameEnd: number): string {
  let end = nameEnd;
  if (end > 0 && (isHeaderQuote(text.charCodeAt(end - 1)) || isSmartQuote(text.charCodeAt(end - 1)))) end--;
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
export function pendingBoundary(text: string): number {
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
export const RULE_CHAR = /[A-Z_.=:+&-]|[\x00-\x08\x0e-\x1b\x7f\u200b-\u200f\u202a-\u202e\u2060\ufeff]/;

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
