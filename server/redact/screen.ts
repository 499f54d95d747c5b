// A screen in front of the rules (issue 37, finding 9): one pass over a text that proves no rule of engine.ts can
// find anything in it, so the rules need not run. Most short texts (a title, a file name, a line of prose) hold
// none of what every rule needs to fire, and redacting 2,000 titles through the whole rule set was most of the
// first list of conversations after a start.
//
// Exact by construction, never a weaker redaction: each rule the engine runs (engine.ts lists them as data) is
// paired below with a condition that every text it finds something in meets; the screen passes a text only when it
// meets none of them, and then redact(text) is the text itself. The conditions read the rules' own constants
// (vendor prefixes and tails, minimum lengths, the names the operator rules look for), so a changed shape or
// name moves the screen with it. A rule the screen does not know, or a name without one of its keywords, turns the
// screen off (every text goes through the rules: slower, never wrong), and screen.test.ts fails until it is
// covered. Known secrets are not screened: they are masked exactly before (maskKnown), and the screen judges what
// the rules are given.
//
// Every condition only weakens when characters are cut away (a run gets shorter, a literal or keyword disappears),
// so a text that passes also passes in the pieces the engine cuts it into around `[REDACTED PRIVATE KEY]`.
import { A4_KEYWORDS, assignmentAt, AZURE_NAMES, fieldAt, FIELD_NAMES, FIELD_SUFFIXES, IDENTIFIER_SUFFIX_WORDS, yamlAt } from './assignments.js';
import { asciiTable, inTable } from './chars.js';
import { applyRules, COLON_RULES, EQUALS_RULES, TEXT_SCANS, TOKEN_SCANS } from './engine.js';
import { API_KEY_HEADERS, apiKeyHeaderAt, AUTHORIZATION, authorizationAt } from './headers.js';
import { INVISIBLE } from './invisible.js';
import { NAME_WORDS } from './names.js';
import { PEM_BEGIN_LITERAL } from './pem.js';
import {
  AWS_KEY_TAIL,
  AWS_PREFIXES,
  DISCORD_FIRST_MIN,
  DISCORD_LAST_MIN,
  DISCORD_MIDDLE,
  JWT_MIN_TAIL,
  JWT_PREFIX,
  scanAws,
  scanJwt,
  scanPhones,
  scanTwilio,
  TELEGRAM_ID_MIN,
  telegramAt,
  TWILIO_HEX,
  TWILIO_PREFIX,
  ZHIPU_ID,
  ZHIPU_SECRET_MIN,
} from './tokens.js';
import { scanForms, urlAt } from './urls.js';
import { scanVendors, VENDOR_SHAPES } from './vendors.js';

/**
 * Every character a token rule's match can hold (vendor prefixes and tails, AWS, JWT, Twilio, Discord, Zhipu): a
 * match lies inside one run of these. Checked against every vendor shape below.
 */
const TOKEN_CHARS_SOURCE = '[A-Za-z0-9_.=-]';
const TOKEN_CHARS = asciiTable(new RegExp(TOKEN_CHARS_SOURCE));
/** The literal every token rule's match starts with (a vendor prefix, AKIA/ASIA, eyJ, SK). */
export const TOKEN_LITERALS: readonly string[] = [...VENDOR_SHAPES.map((s) => s.prefix), ...AWS_PREFIXES, JWT_PREFIX, TWILIO_PREFIX];
/**
 * Discord and Zhipu keys are found at a dot, with no prefix: at least this many letters and digits stand right
 * before it (Discord's first part, Zhipu's hex id).
 */
export const ALNUM_BEFORE_DOT = Math.min(DISCORD_FIRST_MIN, ZHIPU_ID);
const DOTTED_TOKEN_MIN = Math.min(DISCORD_FIRST_MIN + 1 + DISCORD_MIDDLE + 1 + DISCORD_LAST_MIN, ZHIPU_ID + 1 + ZHIPU_SECRET_MIN);
/** The shortest match of any token rule: a text whose runs of TOKEN_CHARS are all shorter holds none. */
export const TOKEN_MIN = Math.min(
  ...VENDOR_SHAPES.map((s) => s.prefix.length + s.minTail),
  ...AWS_PREFIXES.map((p) => p.length + AWS_KEY_TAIL),
  JWT_PREFIX.length + JWT_MIN_TAIL,
  TWILIO_PREFIX.length + TWILIO_HEX,
  DOTTED_TOKEN_MIN,
);
/** A private-key block starts with this many dashes (`-----BEGIN`). */
const PEM_DASHES = PEM_BEGIN_LITERAL.length - PEM_BEGIN_LITERAL.replace(/^-+/, '').length;

/**
 * Every rule at `=` or `:` looks back at a name holding one of these (any case): `API_KEY=`, `x-api-key:`,
 * `"password":`, `Authorization:`, `AccountKey=` … (the URL and Telegram rules excepted: they have their own
 * condition). Checked against the rules' own name lists below.
 */
export const OPERATOR_KEYWORDS = ['key', 'pass', 'pw', 'token', 'secret', 'credential', 'auth', 'bearer', 'signature'];
const KEYWORD = new RegExp(OPERATOR_KEYWORDS.join('|'), 'i');
/** The names the operator rules look for, as their modules list them: each must hold a keyword. */
export const OPERATOR_NAMES: readonly string[] = [
  ...A4_KEYWORDS, ...IDENTIFIER_SUFFIX_WORDS, ...AZURE_NAMES, ...FIELD_NAMES, ...FIELD_SUFFIXES, ...API_KEY_HEADERS, ...NAME_WORDS,
  AUTHORIZATION, 'auth', 'api_key',
];
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const LITERAL = new RegExp(TOKEN_LITERALS.map(escapeRegExp).join('|'));

/** Each rule the engine runs and the condition every text it fires on meets (what untouchedByRules tests). */
export const SCREENED_RULES = new Map<unknown, string>([
  [scanVendors, 'a vendor prefix in a run of token characters of TOKEN_MIN or more; Discord and Zhipu ALNUM_BEFORE_DOT letters and digits before a dot'],
  [scanAws, 'AKIA or ASIA in a run of TOKEN_MIN or more'],
  [scanJwt, 'eyJ in a run of TOKEN_MIN or more'],
  [scanTwilio, 'SK in a run of TOKEN_MIN or more'],
  [assignmentAt, 'a `=` and an operator keyword'],
  [authorizationAt, 'a `=` or `:` and "auth"'],
  [urlAt, 'a `://`'],
  [apiKeyHeaderAt, 'a `:` and an operator keyword'],
  [fieldAt, 'a `:` and an operator keyword'],
  [yamlAt, 'a `:` and an operator keyword'],
  [telegramAt, 'a `:` after TELEGRAM_ID_MIN digits'],
  [scanPhones, 'a `+` before a digit 1-9'],
  [scanForms, 'a `&` and a `=`'],
]);

/** Why the screen is off, or null when every rule and name is covered (screen.test.ts asserts null). */
export function screenGap(): string | null {
  for (const rule of [...TOKEN_SCANS, ...EQUALS_RULES, ...COLON_RULES, ...TEXT_SCANS]) {
    if (!SCREENED_RULES.has(rule)) return `the engine runs a rule the screen does not know: ${rule.name}`;
  }
  for (const shape of VENDOR_SHAPES) {
    for (let c = 0; c < 128; c++) if (shape.tail[c] === 1 && TOKEN_CHARS[c] !== 1) return `vendor ${shape.prefix}: tail character ${String.fromCharCode(c)}`;
    for (const ch of shape.prefix) if (!inTable(TOKEN_CHARS, ch.charCodeAt(0))) return `vendor prefix ${shape.prefix}`;
  }
  for (const name of OPERATOR_NAMES) if (!KEYWORD.test(name)) return `name without a screen keyword: ${name}`;
  return null;
}

const ENABLED = screenGap() === null;

// The screen is a few regular expressions: compiled to native code, they read a text much faster than a loop
// over its characters in JavaScript, and a short text costs a few hundred nanoseconds.
/** What makes a text unscreenable at once: a character or pair some rule or step always reads closely. */
const ALWAYS_READ = new RegExp(
  [
    // A backslash may be a Markdown escape the rules read through (markdown-escapes.ts).
    '\\\\',
    // Control and zero-width characters: B11 joins tokens across them (invisible.ts).
    INVISIBLE.source,
    // A phone number (B10), a URL (B7 and C), a Telegram token (B6), a private-key block (A5).
    '\\+[1-9]',
    ':\\/\\/',
    `[0-9]{${TELEGRAM_ID_MIN}}:`,
    `-{${PEM_DASHES}}`,
  ].join('|'),
);
const OPERATOR = /[:=]/;
const LONG_RUN = new RegExp(`${TOKEN_CHARS_SOURCE}{${TOKEN_MIN}}`);
// The dot first, then what stands before it: a run of letters is not read again from each of its characters.
const DOTTED = new RegExp(`(?<=[A-Za-z0-9]{${ALNUM_BEFORE_DOT}})\\.`);

/** True when no rule of engine.ts can find anything in `text`: then applyRules(text) === text. */
export function untouchedByRules(text: string): boolean {
  if (!ENABLED || ALWAYS_READ.test(text)) return false;
  if (OPERATOR.test(text) && (KEYWORD.test(text) || (text.includes('&') && text.includes('=')))) return false;
  if (LONG_RUN.test(text) && (LITERAL.test(text) || DOTTED.test(text))) return false;
  return true;
}

/** applyRules(text), without running the rules when the screen proves the text untouched. */
export function applyRulesScreened(text: string): string {
  return untouchedByRules(text) ? text : applyRules(text);
}
