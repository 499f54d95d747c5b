// Runs every rule on the original text and applies one mask per span. Private-key blocks (and placeholders
// already in the text) are cut out first; the other rules run on the pieces between them.
import { assignmentAt, fieldAt, yamlAt } from './assignments.js';
import { RunCache } from './chars.js';
import { apply, type Finding, resolve } from './finding.js';
import { apiKeyHeaderAt, authorizationAt } from './headers.js';
import { invisibleFindings } from './invisible.js';
import { hasMarkdownEscape, mapBack, unescapeMarkdown } from './markdown-escapes.js';
import { REDACTED_PRIVATE_KEY } from './mask.js';
import { privateKeySpans } from './pem.js';
import { scanAws, scanJwt, scanPhones, scanTwilio, telegramAt } from './tokens.js';
import { scanForms, urlAt } from './urls.js';
import { scanVendors } from './vendors.js';

const OPERATOR = /[=:]/g;
const EQUALS = 0x3d;

type Scan = (text: string, out: Finding[]) => void;
type AtOperator = (text: string, at: number, out: Finding[]) => void;

// Every rule the engine runs, as data: screen.ts proves a text untouched by each of them without running them, and
// refuses to screen at all (every text goes through the rules) unless it knows each one listed here.
/** The token rules: the ones B11 runs again on text joined across invisible characters. */
export const TOKEN_SCANS: readonly Scan[] = [scanVendors, scanAws, scanJwt, scanTwilio];
/** Rules found at a `=`. */
export const EQUALS_RULES: readonly AtOperator[] = [assignmentAt, authorizationAt];
/** Rules found at a `:`. */
export const COLON_RULES: readonly AtOperator[] = [urlAt, authorizationAt, apiKeyHeaderAt, fieldAt, yamlAt, telegramAt];
/** Rules that look at the whole text. */
export const TEXT_SCANS: readonly Scan[] = [scanPhones, scanForms];

export function scanTokens(text: string, out: Finding[]): void {
  for (const scan of TOKEN_SCANS) scan(text, out);
}

/** Rules found at an operator: assignments, fields, headers, URLs, Telegram tokens. */
function scanOperators(text: string, out: Finding[]): void {
  const operators = OPERATOR;
  operators.lastIndex = 0;
  while (operators.test(text)) {
    const at = operators.lastIndex - 1;
    handleOperator(text, at, out);
  }
}

function handleOperator(text: string, at: number, out: Finding[]): void {
  for (const rule of text.charCodeAt(at) === EQUALS ? EQUALS_RULES : COLON_RULES) rule(text, at, out);
}

/**
 * The resolved findings of one piece of text without private-key blocks. A piece with Markdown escapes is read as
 * Markdown shows it (markdown-escapes.ts): what the rules find there wins. What they find only in the text as
 * written is kept where it overlaps nothing of that and holds no escape (at or next to its ends): a span with an
 * escape is judged as shown only, or a mask made from escaped characters (`ABCDEF...\_key`) would be masked
 * again as written, and redacting twice must change nothing. Private-key blocks are cut out before, on the text
 * as written, so a block's bounds never depend on it.
 */
function pieceFindings(text: string): Finding[] {
  if (!hasMarkdownEscape(text)) return pieceAsWritten(text);
  const unescaped = unescapeMarkdown(text);
  const asWritten = pieceAsWritten(text).filter((f) => !hasMarkdownEscape(text.slice(Math.max(0, f.start - 1), f.end + 1)));
  return resolve(text, mapBack(unescaped, pieceAsWritten(unescaped.copy)), asWritten);
}

function pieceAsWritten(text: string): Finding[] {
  RunCache.resetAll();
  const found: Finding[] = [];
  scanTokens(text, found);
  scanOperators(text, found);
  for (const scan of TEXT_SCANS) scan(text, found);
  return resolve(text, found, invisibleFindings(text, scanTokens));
}

export const PRIVATE_KEY_RULE = 'private key';

/** Every replacement redact() makes, in text order, on the original text. */
export function findAll(text: string): Finding[] {
  const spans = privateKeySpans(text);
  if (spans.length === 0) return pieceFindings(text);
  const all: Finding[] = [];
  let pos = 0;
  const piece = (end: number) => {
    for (const f of pieceFindings(text.slice(pos, end))) all.push({ ...f, start: f.start + pos, end: f.end + pos });
  };
  for (const span of spans) {
    piece(span.start);
    if (!span.placeholder) all.push({ start: span.start, end: span.end, text: REDACTED_PRIVATE_KEY, rule: PRIVATE_KEY_RULE, rank: 0 });
    pos = span.end;
  }
  piece(text.length);
  return all;
}

/**
 * Every rule applied to `text` as it is: no known secrets, no memo (index.ts `redact` adds both). Named apart from
 * projections/brand.ts `redactText`, the one way a response gets free text.
 */
export function applyRules(text: string): string {
  return apply(text, findAll(text));
}
