// Credential redaction of response text (spec-notes 4.0, "Redaction").
//
// Design: private-key blocks are cut out first (so no other rule can swallow a BEGIN marker and leak the key
// body); every other rule runs in ONE left-to-right pass over the ORIGINAL text. A rule that fires masks a token
// of the original string, and nothing inside that token is replaced again, so a value is masked once, from its
// original token: `AUTH=sk-…` is masked as one assignment value, never as an sk- key and then again as a value.
//
// Decisions where the specification leaves room (docs/benchmarks/redaction.md repeats them):
// - Vendor key shapes: a literal prefix, then at least VENDOR_MIN_TAIL characters from the vendor's token
//   alphabet (the whole match, prefix included, is the token that gets masked). The prefix must not follow an
//   ASCII letter or digit (`task-force…` is not an `sk-` key), except the AWS shape, which the specification
//   wants found even inside a longer base64 run. `sk-proj-` / `sk-ant-` are covered by `sk-`, whose alphabet
//   includes `-`, so their tails are counted from after `sk-`.
// - `Authorization` (any case, also `Proxy-Authorization`, `HTTP_AUTHORIZATION=`, quoted JSON keys) followed by
//   `:` or `=` and the scheme Bearer, Bot, Basic or Token: the credential after the scheme is masked and the
//   scheme kept. Basic and Token go beyond the specification's "Bearer|Bot": they are credentials too.
// - `NAME=value`: literally `=`, no blanks around it (`NAME: value` and `NAME = value` are not assignments).
//   NAME is the run of [A-Za-z0-9_.-] before `=`, matched case-insensitively against API_KEY/API-KEY, APIKEY,
//   TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL and AUTH (so `AUTHOR=…`, `max_tokens=…`, `?token=…` are masked:
//   the specification says fail closed). `==` and `=>` are operators, not assignments. A value quoted with `"`
//   or `'` runs to the closing quote on the same line (backslash escapes honoured; the quotes are kept);
//   otherwise it runs to whitespace or a quote. A value without a letter or digit (`TOKEN=")"`) is kept.
// - A value that already has the mask's shape (`***`, or 6 characters + `...` + 4) is left alone, and values end
//   at a `[REDACTED PRIVATE KEY]` placeholder, so redact(redact(x)) === redact(x): text that was redacted once
//   (a stored session, a log line) stays stable.
// - No rule crosses a line break except a private-key block, which is what lets redact-cli stream by line.

/** Memoization applies to strings up to this many UTF-16 units; longer ones are always re-redacted. */
export const MEMO_MAX_CHARS = 16384;
/** Memo entries kept; the least recently used is evicted first. */
export const MEMO_MAX_ENTRIES = 4096;
/** Tokens at least this long keep a head and a tail; shorter ones become SHORT_MASK. */
export const MASK_MIN_LENGTH = 18;
export const MASK_HEAD = 6;
export const MASK_TAIL = 4;
export const MASK_ELLIPSIS = '...';
export const SHORT_MASK = '***';
/** Minimum tail after a vendor prefix (specification: "minimum tail of 10 characters"). */
export const VENDOR_MIN_TAIL = 10;
/** Google API keys: `AIza` + at least 30 (real keys have 35). */
export const GOOGLE_MIN_TAIL = 30;
/** AWS access key ids: `AKIA`/`ASIA` + exactly 16 upper-case alphanumerics. */
export const AWS_KEY_TAIL = 16;
export const REDACTED_PRIVATE_KEY = '[REDACTED PRIVATE KEY]';

// ---------------------------------------------------------------------------------------------------------
// Character tables: the hot loops test charCodeAt against these instead of running a regex per character.

function asciiTable(pattern: RegExp): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) table[c] = pattern.test(String.fromCharCode(c)) ? 1 : 0;
  return table;
}

const ALNUM = asciiTable(/[A-Za-z0-9]/);
const ALNUM_UNDERSCORE = asciiTable(/[A-Za-z0-9_]/);
const ALNUM_DASH = asciiTable(/[A-Za-z0-9-]/);
const BASE64URL = asciiTable(/[A-Za-z0-9_-]/);
const BASE64URL_DOT = asciiTable(/[A-Za-z0-9_.-]/);
const UPPER_ALNUM = asciiTable(/[A-Z0-9]/);
const NAME_CHARS = asciiTable(/[A-Za-z0-9_.-]/);
// Unquoted values and Authorization credentials end at whitespace or a quote.
const VALUE_STOP = asciiTable(/[\s"'`]/);
const UNICODE_SPACE = /\s/;

const EQUALS = 0x3d;
const GREATER = 0x3e;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const DOT = 0x2e;

function isValueStop(c: number): boolean {
  if (c < 128) return VALUE_STOP[c] === 1;
  return UNICODE_SPACE.test(String.fromCharCode(c));
}

// ---------------------------------------------------------------------------------------------------------
// Vendor key shapes.

export interface VendorShape {
  prefix: string;
  /** Token alphabet after the prefix (ASCII only). */
  tail: Uint8Array;
  minTail: number;
  /** Stop after this many tail characters (fixed-length shapes). */
  maxTail?: number;
  /** Found even right after a letter or digit (the AWS shape inside base64). */
  embedded?: boolean;
  /** Single dots separate segments; a token never ends on a dot (a full stop) nor spans `..` (a mask). */
  dotted?: boolean;
}

function shapes(prefixes: string[], tail: Uint8Array, extra: Partial<VendorShape> = {}): VendorShape[] {
  return prefixes.map((prefix) => ({ prefix, tail, minTail: VENDOR_MIN_TAIL, ...extra }));
}

export const VENDOR_SHAPES: readonly VendorShape[] = [
  // OpenAI, Anthropic, OpenRouter, DeepSeek, …: sk-, sk-proj-, sk-ant-, sk-or-v1-, sk-svcacct-.
  ...shapes(['sk-'], BASE64URL),
  // Stripe secret / restricted keys and webhook secrets.
  ...shapes(['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'whsec_'], ALNUM),
  // GitHub classic, OAuth, user-to-server, server-to-server, refresh; fine-grained PATs.
  ...shapes(['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], ALNUM),
  ...shapes(['github_pat_'], ALNUM_UNDERSCORE),
  // Slack bot/app/user/refresh/legacy tokens and app-level tokens.
  ...shapes(['xoxb-', 'xoxa-', 'xoxp-', 'xoxr-', 'xoxs-', 'xapp-'], ALNUM_DASH),
  ...shapes(['AIza'], BASE64URL, { minTail: GOOGLE_MIN_TAIL }),
  ...shapes(['ya29.'], BASE64URL), // Google OAuth access tokens
  ...shapes(['AKIA', 'ASIA'], UPPER_ALNUM, { minTail: AWS_KEY_TAIL, maxTail: AWS_KEY_TAIL, embedded: true }),
  ...shapes(['SG.'], BASE64URL_DOT, { dotted: true }), // SendGrid: SG.<id>.<secret>
  ...shapes(['hf_', 'npm_', 'r8_', 'gsk_', 'pplx-', 'xai-', 'tvly-', 'ntn_', 'lin_api_'], ALNUM),
  ...shapes(['pypi-', 'dckr_pat_', 'hvs.', 'hvb.'], BASE64URL), // PyPI, Docker Hub, HashiCorp Vault
  // GitLab token families.
  ...shapes(['glpat-', 'gldt-', 'glrt-', 'glptt-', 'glcbt-', 'glft-', 'glsoat-', 'gloas-'], BASE64URL),
  ...shapes(['dop_v1_', 'doo_v1_', 'dor_v1_'], ALNUM), // DigitalOcean
  ...shapes(['shpat_', 'shpss_', 'shpca_', 'shppa_'], ALNUM), // Shopify
  ...shapes(['PMAK-'], ALNUM_DASH), // Postman
  ...shapes(['AGE-SECRET-KEY-1'], ALNUM), // age private keys
];

// Prefixes are not searched for one by one: a regex alternation of ~50 literals crawls through prose (every
// common letter starts some prefix). Nearly every prefix has a separator (`-`, `_`, `.`) after a short word, so
// the trigger is the separator, and the word before it (its "head") picks the candidate prefixes. The few
// prefixes without a separator (AKIA, ASIA, AIza) stay literal in the trigger regex.
const PREFIX_SEPARATOR = /[-_.]/;
const VENDOR_BY_HEAD = new Map<string, VendorShape[]>();
const LITERAL_VENDORS = new Map<string, VendorShape>();
for (const shape of VENDOR_SHAPES) {
  const separator = shape.prefix.search(PREFIX_SEPARATOR);
  if (separator === -1) {
    LITERAL_VENDORS.set(shape.prefix, shape);
    continue;
  }
  const head = shape.prefix.slice(0, separator);
  if (!/^[A-Za-z0-9]+$/.test(head)) throw new Error(`Vendor prefix needs a letter/digit head: ${shape.prefix}`);
  const list = VENDOR_BY_HEAD.get(head) ?? [];
  list.push(shape);
  list.sort((a, b) => b.prefix.length - a.prefix.length); // the longest prefix wins
  VENDOR_BY_HEAD.set(head, list);
}
const MAX_HEAD = Math.max(...[...VENDOR_BY_HEAD.keys()].map((head) => head.length));

const AUTHORIZATION = 'authorization';
const AUTHORIZATION_SOURCE = [...AUTHORIZATION].map((ch) => `[${ch.toUpperCase()}${ch}]`).join('');
// After the word: optional closing quote of a JSON key, `:` or `=`, optional opening quote, the scheme, blanks.
// Horizontal blanks only, so the rule never crosses a line. Linear: every repeat is followed by a literal.
const AUTHORIZATION_SCHEME = /["']?[ \t]*[:=][ \t]*["']?(?:bearer|bot|basic|token)[ \t]+/iy;

const SECRET_NAME = /API[_-]?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// One regex finds every place where some rule could start; the rules themselves are small scanners.
const TRIGGER = new RegExp(['[-_.=]', AUTHORIZATION_SOURCE, ...[...LITERAL_VENDORS.keys()].map(escapeRegExp)].join('|'), 'g');
const ONE_CHAR_TRIGGER = asciiTable(/[-_.]/);
const LOWER_N = 0x6e;
const UPPER_N = 0x4e;
// The trigger's length is read back from its last character; this keeps that reading honest.
for (const prefix of LITERAL_VENDORS.keys()) {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (prefix.length !== 4 || last === LOWER_N || last === UPPER_N || (last < 128 && ONE_CHAR_TRIGGER[last] === 1)) {
    throw new Error(`Literal vendor prefix must be 4 characters not ending in n, N or a separator: ${prefix}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Masking.

const SURROGATE = /[\uD800-\uDFFF]/;
const MASK_SHAPE = new RegExp(`^[\\s\\S]{${MASK_HEAD}}\\.\\.\\.[\\s\\S]{${MASK_TAIL}}$`, 'u');
// In UTF-16 units: every masked character may be a surrogate pair.
const MASK_MIN_UNITS = MASK_HEAD + MASK_ELLIPSIS.length + MASK_TAIL;
const MASK_MAX_UNITS = 2 * (MASK_HEAD + MASK_TAIL) + MASK_ELLIPSIS.length;

/** The specification's masking rule; lengths are counted in code points so a mask never splits a character. */
export function maskToken(token: string): string {
  const points = SURROGATE.test(token) ? Array.from(token) : null;
  const length = points ? points.length : token.length;
  if (length < MASK_MIN_LENGTH) return SHORT_MASK;
  if (points) return points.slice(0, MASK_HEAD).join('') + MASK_ELLIPSIS + points.slice(-MASK_TAIL).join('');
  return token.slice(0, MASK_HEAD) + MASK_ELLIPSIS + token.slice(-MASK_TAIL);
}

/** True for a value that is already a mask, so a second redaction leaves it as it is. */
function isMask(token: string): boolean {
  return token === SHORT_MASK || (token.length >= MASK_MIN_UNITS && token.length <= MASK_MAX_UNITS && MASK_SHAPE.test(token));
}

const ALPHANUMERIC = /[\p{L}\p{N}]/u;

// ---------------------------------------------------------------------------------------------------------
// Rules. Each returns the replaced range, or null when it does not apply at this position.

interface Replacement {
  start: number;
  end: number;
  text: string;
}

function vendorAt(text: string, at: number, shape: VendorShape): Replacement | null {
  if (!shape.embedded && at > 0) {
    const before = text.charCodeAt(at - 1);
    if (before < 128 && ALNUM[before] === 1) return null;
  }
  const tailStart = at + shape.prefix.length;
  const limit = shape.maxTail === undefined ? text.length : Math.min(text.length, tailStart + shape.maxTail);
  let end = tailStart;
  while (end < limit) {
    const c = text.charCodeAt(end);
    if (c >= 128 || shape.tail[c] !== 1) break;
    if (c === DOT && shape.dotted && text.charCodeAt(end - 1) === DOT) break;
    end++;
  }
  if (shape.dotted) while (end > tailStart && text.charCodeAt(end - 1) === DOT) end--;
  if (end - tailStart < shape.minTail) return null;
  return { start: at, end, text: maskToken(text.slice(at, end)) };
}

const OPEN_BRACKET = 0x5b;

/** True where a private-key placeholder starts: values end there, as they did at the block on the first pass. */
function isPlaceholderAt(text: string, at: number): boolean {
  return text.charCodeAt(at) === OPEN_BRACKET && text.startsWith(REDACTED_PRIVATE_KEY, at);
}

/** A vendor key whose prefix has its first separator at `at`, or null. */
function separatedVendorAt(text: string, at: number, cursor: number): Replacement | null {
  let start = at;
  while (start > 0 && at - start <= MAX_HEAD) {
    const c = text.charCodeAt(start - 1);
    if (c >= 128 || ALNUM[c] !== 1) break;
    start--;
  }
  // A word longer than every head means the prefix would follow a letter or digit: not a key.
  if (start === at || at - start > MAX_HEAD || start < cursor) return null;
  const candidates = VENDOR_BY_HEAD.get(text.slice(start, at));
  if (candidates === undefined) return null;
  for (const shape of candidates) {
    if (!text.startsWith(shape.prefix, start)) continue;
    const replacement = vendorAt(text, start, shape);
    if (replacement !== null) return replacement;
  }
  return null;
}

function credentialEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    if (isValueStop(c) || (c === OPEN_BRACKET && isPlaceholderAt(text, end))) break;
    end++;
  }
  return end;
}

function authorizationAt(text: string, at: number): Replacement | null {
  AUTHORIZATION_SCHEME.lastIndex = at + AUTHORIZATION.length;
  if (!AUTHORIZATION_SCHEME.test(text)) return null;
  const start = AUTHORIZATION_SCHEME.lastIndex;
  const end = credentialEnd(text, start);
  const credential = text.slice(start, end);
  // A header with a scheme is always consumed, even when its credential is empty, already masked or has no
  // letter or digit: otherwise `AUTHORIZATION=Bearer ***` would next be read as an assignment and the scheme
  // word masked on a second pass.
  const keep = !ALPHANUMERIC.test(credential) || isMask(credential);
  return { start, end, text: keep ? credential : maskToken(credential) };
}

/** Closing quote index of a quoted value starting at `open`, or -1 when the line ends first. */
function closingQuote(text: string, open: number): number {
  const quote = text.charCodeAt(open);
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === quote) return i;
    if (c === NEWLINE || (c === OPEN_BRACKET && isPlaceholderAt(text, i))) return -1;
    if (c === BACKSLASH) {
      if (text.charCodeAt(i + 1) === NEWLINE) return -1;
      i++;
    }
  }
  return -1;
}

function assignmentAt(text: string, at: number): Replacement | null {
  const next = text.charCodeAt(at + 1);
  if (next === EQUALS || next === GREATER) return null;
  let nameStart = at;
  while (nameStart > 0) {
    const c = text.charCodeAt(nameStart - 1);
    if (c >= 128 || NAME_CHARS[c] !== 1) break;
    nameStart--;
  }
  if (nameStart === at || !SECRET_NAME.test(text.slice(nameStart, at))) return null;

  let start = at + 1;
  let end = -1;
  if (next === DOUBLE_QUOTE || next === SINGLE_QUOTE) {
    end = closingQuote(text, at + 1);
    start = at + 2; // inside the quotes; when unclosed, the value after the stray quote is still masked
  }
  if (end === -1) end = credentialEnd(text, start);
  const value = text.slice(start, end);
  if (!ALPHANUMERIC.test(value)) return null;
  return { start, end, text: isMask(value) ? value : maskToken(value) };
}

/** Every rule except private-key blocks, in one pass over the original text. */
function redactTokens(text: string): string {
  const trigger = TRIGGER;
  trigger.lastIndex = 0;
  let out = '';
  let copied = 0; // also the cursor: nothing before it may be replaced again
  // test() instead of exec(): no match array per trigger. The trigger's last character tells which it was.
  while (trigger.test(text)) {
    const last = text.charCodeAt(trigger.lastIndex - 1);
    const length = last === EQUALS || ONE_CHAR_TRIGGER[last] === 1 ? 1 : last === LOWER_N || last === UPPER_N ? AUTHORIZATION.length : 4;
    const at = trigger.lastIndex - length;
    // Triggers inside an already-masked token are still looked at, but only for a value that starts after it:
    // in `Authorization: Bearer API_KEY="x"` the credential stops at the quote and the quoted value still
    // belongs to API_KEY. Vendor keys start at their trigger, so inside a masked token they are skipped.
    trigger.lastIndex = at + 1;
    let replacement: Replacement | null = null;
    if (last === EQUALS) {
      if (at + 1 >= copied) replacement = assignmentAt(text, at);
    } else if (length === 1) {
      if (at >= copied) replacement = separatedVendorAt(text, at, copied);
    } else if (length === AUTHORIZATION.length) {
      replacement = authorizationAt(text, at);
    } else if (at >= copied) {
      const shape = LITERAL_VENDORS.get(text.slice(at, at + length));
      if (shape !== undefined) replacement = vendorAt(text, at, shape);
    }
    if (replacement === null || replacement.start < copied) continue;
    out += text.slice(copied, replacement.start) + replacement.text;
    copied = replacement.end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// ---------------------------------------------------------------------------------------------------------
// Private-key blocks.

// Labels are a few short upper-case words (RSA, EC, OPENSSH, ENCRYPTED, PGP … BLOCK); bounded repeats keep
// these linear on hostile input such as a megabyte of capitals after `-----BEGIN `.
const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY(?: BLOCK)?-----/y;
const PEM_END = /-----END (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY(?: BLOCK)?-----/y;
const PEM_BEGIN_LITERAL = '-----BEGIN ';
const PEM_END_LITERAL = '-----END ';

export interface Span {
  start: number;
  end: number;
}

function findMarker(text: string, from: number, literal: string, marker: RegExp): Span | null {
  for (let at = text.indexOf(literal, from); at !== -1; at = text.indexOf(literal, at + 1)) {
    marker.lastIndex = at;
    if (marker.test(text)) return { start: at, end: marker.lastIndex };
  }
  return null;
}

/** The next `-----BEGIN … PRIVATE KEY-----` marker at or after `from`. */
export function findPrivateKeyBegin(text: string, from = 0): Span | null {
  return findMarker(text, from, PEM_BEGIN_LITERAL, PEM_BEGIN);
}

/** The next `-----END … PRIVATE KEY-----` marker at or after `from`. */
export function findPrivateKeyEnd(text: string, from = 0): Span | null {
  return findMarker(text, from, PEM_END_LITERAL, PEM_END);
}

function redactUncached(text: string): string {
  let begin = findPrivateKeyBegin(text);
  if (begin === null) return redactTokens(text);
  let out = '';
  let pos = 0;
  while (begin !== null) {
    out += redactTokens(text.slice(pos, begin.start)) + REDACTED_PRIVATE_KEY;
    const end = findPrivateKeyEnd(text, begin.end);
    // Fail closed: a block without its END marker (truncated output) is redacted to the end of the text.
    if (end === null) return out;
    pos = end.end;
    begin = findPrivateKeyBegin(text, pos);
  }
  return out + redactTokens(text.slice(pos));
}

// ---------------------------------------------------------------------------------------------------------
// Memo cache: a Map keeps insertion order, so re-inserting on a hit makes the first key the least recent.

const memo = new Map<string, string>();

/** Mask every credential in `text` (spec-notes 4.0). Never throws; a non-string is returned unchanged. */
export function redact(text: string): string {
  if (typeof text !== 'string' || text.length === 0) return text;
  if (text.length > MEMO_MAX_CHARS) return redactUncached(text);
  const cached = memo.get(text);
  if (cached !== undefined) {
    memo.delete(text);
    memo.set(text, cached);
    return cached;
  }
  const result = redactUncached(text);
  memo.set(text, result);
  if (memo.size > MEMO_MAX_ENTRIES) memo.delete(memo.keys().next().value as string);
  return result;
}

/** Number of memoized strings (for tests and diagnostics). */
export function redactCacheSize(): number {
  return memo.size;
}

/** True when `text` is memoized (does not refresh its recency). */
export function isRedactCached(text: string): boolean {
  return memo.has(text);
}

export function clearRedactCache(): void {
  memo.clear();
}

// ---------------------------------------------------------------------------------------------------------
// Deep redaction of response values.

type Container = Record<string, unknown> | unknown[];

function isPlainContainer(value: unknown): value is Container {
  if (Array.isArray(value)) return true;
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function emptyLike(value: Container): Container {
  if (Array.isArray(value)) return new Array<unknown>(value.length);
  return Object.getPrototypeOf(value) === null ? Object.create(null) : {};
}

function assign(target: Container, key: string | number, value: unknown): void {
  // defineProperty, because `target["__proto__"] = x` would set the prototype instead of copying a JSON key.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string | number, unknown>)[key] = value;
}

/**
 * A deep copy of `value` with every string VALUE redacted; object keys are kept as they are (they are field
 * names and ids, and rewriting them could merge two keys). Arrays and plain objects (prototype Object or null)
 * are copied; anything else (numbers, Dates, Buffers, Maps, class instances, functions) is returned as the same
 * reference. Iterative, so depth cannot overflow the stack; a shared or cyclic sub-object is copied once and
 * the copy keeps the same sharing (a cycle stays a cycle rather than recursing forever).
 */
export function redactDeep<T>(value: T): T {
  if (typeof value === 'string') return redact(value) as T;
  if (!isPlainContainer(value)) return value;
  const copies = new Map<object, Container>();
  const root = emptyLike(value);
  copies.set(value, root);
  const pending: Array<[Container, Container]> = [[value, root]];
  for (let job = pending.pop(); job !== undefined; job = pending.pop()) {
    const [source, target] = job;
    const keys: Array<string | number> = Array.isArray(source) ? Array.from(source, (_, i) => i) : Object.keys(source);
    for (const key of keys) {
      const item = (source as Record<string | number, unknown>)[key];
      if (typeof item === 'string') assign(target, key, redact(item));
      else if (isPlainContainer(item)) {
        let copy = copies.get(item);
        if (copy === undefined) {
          copy = emptyLike(item);
          copies.set(item, copy);
          pending.push([item, copy]);
        }
        assign(target, key, copy);
      } else assign(target, key, item);
    }
  }
  return root as T;
}
