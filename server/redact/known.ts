// Known secrets: values Satchel holds itself (the agent's API key, and its own access tokens: the launch token and
// the MCP token) masked wherever they appear, whatever their shape. The pattern rules (vendors.ts, assignments.ts, …) recognise a key by how it looks; a key with no known
// vendor shape, echoed by a hostile or broken agent in its reply, a tool name or a model name, looks like any
// word. Satchel knows the exact value, so it masks that value and the forms an echo takes to slip past an
// exact comparison:
//   - the key itself, and each of its halves (a key cut in two across a sentence, a field or two tool calls);
//   - the key with up to SEPARATORS_BETWEEN separators between its characters (`q-7-Z-r…`, `q 7 Z r…`, a
//     zero-width space after every character);
//   - its base64 and base64url encodings at the three byte alignments, so a key inside any base64 text
//     (`Basic base64(user:key)`, a JSON blob encoded whole) is found: the characters of an encoding that depend
//     on the key's bytes only are the same whatever precedes the key.
// Every match becomes SHORT_MASK. Masking runs before the pattern rules (redact/index.ts), so
// redact(x) = rules(maskKnown(x)); the stream form (KnownSecretStream, agent/) keeps that order live.
//
// Matching is a small NFA per candidate position: the states are (form, next character, separators used in the
// current gap); a position whose character starts no form costs one Set lookup. At each position the longest
// match of any form wins and the scan goes on after it, so the result is the same however the text is cut into
// pieces (KnownSecretStream relies on `scan` deciding a position only when no later text can change it).
import { SHORT_MASK } from './mask.js';

/** Shorter values are not registered: masking every occurrence of a short word would mangle ordinary text. */
export const KNOWN_SECRET_MIN_CHARS = 12;
/** A half is a form of its own only when at least this long (keys of 16 characters or more). */
export const KNOWN_HALF_MIN_CHARS = 8;
/** Separator characters allowed between two characters of the key (`a - b` is two). */
export const SEPARATORS_BETWEEN = 2;
/** Secrets remembered at once: the current key and a few previous ones (replies stored before a key change). */
export const MAX_KNOWN_SECRETS = 8;
/**
 * Satchel's own tokens remembered at once (the launch token, the MCP token and ones it replaced), in a list of
 * their own: a run of new MCP tokens never pushes the agent's earlier keys out, nor the reverse.
 */
export const MAX_OWN_SECRETS = 8;
/** Agents' MCP tokens kept known at once (mcp/keys.ts MAX_AGENT_KEYS is 64: every live key fits). */
export const MAX_AGENT_KEY_SECRETS = 64;
/** What every match becomes: the same mask as a short token's (redaction.md "Mask"), never part of the key. */
export const KNOWN_SECRET_MASK = SHORT_MASK;

/** Characters an echo may put between the key's characters: blanks, punctuation used as separators, invisibles. */
const SEPARATOR = /[\s\-_.,:;/|\\·•\u00ad\u200b-\u200d\u2060\ufeff]/u;
const ASCII_SEPARATOR = new Uint8Array(128).map((_, c) => (SEPARATOR.test(String.fromCharCode(c)) ? 1 : 0));

/** SEPARATOR of one UTF-16 unit (as the NFA reads them). */
function isSeparator(c: number): boolean {
  return c < 128 ? ASCII_SEPARATOR[c] === 1 : SEPARATOR.test(String.fromCharCode(c));
}

interface Form {
  /** The form's characters (UTF-16 units; keys are ASCII in practice, and a unit-wise match is still exact). */
  chars: string;
  /** Separators may stand between its characters (the raw key and its halves, not an encoding). */
  spaced: boolean;
}

function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const out: string[] = [];
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64');
    // Output characters whose six bits all come from the key's bytes.
    const from = Math.ceil((8 * pad) / 6);
    const to = Math.floor((8 * (pad + bytes.length)) / 6);
    const core = encoded.slice(from, to);
    if (core.length >= KNOWN_SECRET_MIN_CHARS) out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

/** The forms of one secret (see the top). */
export function formsOf(secret: string): Form[] {
  const forms: Form[] = [{ chars: secret, spaced: true }];
  const half = Math.floor(secret.length / 2);
  if (half >= KNOWN_HALF_MIN_CHARS) forms.push({ chars: secret.slice(0, half), spaced: true }, { chars: secret.slice(half), spaced: true });
  for (const core of base64Cores(secret)) forms.push({ chars: core, spaced: false });
  // Distinct forms only (a base64url core equal to its base64 core).
  return forms.filter((f, i) => forms.findIndex((g) => g.chars === f.chars && g.spaced === f.spaced) === i);
}

/** What the NFA found at one position: the longest complete match's end (-1: none) and whether text to come could still change it. */
interface Attempt {
  end: number;
  alive: boolean;
}

export class SecretMatcher {
  private readonly forms: Form[];
  /** 1 at the UTF-16 code of every form's first character: one array read per character of ordinary text. */
  private readonly starts = new Uint8Array(0x10000);
  /** The forms by their first character's code (every form has at least KNOWN_SECRET_MIN_CHARS / 2 characters). */
  private readonly byFirst = new Map<number, Form[]>();
  /** The longest a match can be: the bound of what a stream may have to hold. */
  readonly maxMatchChars: number;

  constructor(secrets: readonly string[]) {
    this.forms = secrets.filter((s) => s.length >= KNOWN_SECRET_MIN_CHARS).flatMap(formsOf);
    for (const f of this.forms) {
      const first = f.chars.charCodeAt(0);
      this.starts[first] = 1;
      const list = this.byFirst.get(first) ?? [];
      list.push(f);
      this.byFirst.set(first, list);
    }
    this.maxMatchChars = Math.max(0, ...this.forms.map((f) => (f.spaced ? f.chars.length + SEPARATORS_BETWEEN * (f.chars.length - 1) : f.chars.length)));
  }

  get empty(): boolean {
    return this.forms.length === 0;
  }

  /**
   * True when no form can match at `at`: none whose first character is there reaches its second one (after at most
   * SEPARATORS_BETWEEN separators for a spaced form). Decided without starting the NFA, which is what most positions
   * of ordinary text cost: a first character followed by a blank (`g ` in `getting started`) is no start unless the
   * form's second character comes next. False when the text ends before that is known (a stream waits for more).
   */
  private cannotStart(text: string, at: number): boolean {
    const forms = this.byFirst.get(text.charCodeAt(at));
    if (forms === undefined) return true;
    for (const f of forms) {
      const second = f.chars.charCodeAt(1);
      let j = at + 1;
      // Separators the NFA could stay on; one that is also the second character is taken as it (it can advance).
      if (f.spaced) for (let seps = 0; seps < SEPARATORS_BETWEEN && j < text.length && text.charCodeAt(j) !== second && isSeparator(text.charCodeAt(j)); seps++) j++;
      if (j >= text.length || text.charCodeAt(j) === second) return false;
    }
    return true;
  }

  /** The NFA run from `at`: every form whose first character is there, its states advanced character by character. */
  private attempt(text: string, at: number): Attempt {
    // A state: form index, characters of it matched, separators used since the last one.
    let states: [number, number, number][] = [];
    const first = text.charCodeAt(at);
    this.forms.forEach((f, i) => {
      if (f.chars.charCodeAt(0) === first) states.push([i, 1, 0]);
    });
    let end = -1;
    let pos = at + 1;
    for (;;) {
      for (const [i, matched] of states) if (matched === this.forms[i]!.chars.length) end = pos;
      // Only states that can still go on: a complete form ends there (no trailing separators).
      states = states.filter(([i, matched]) => matched < this.forms[i]!.chars.length);
      if (states.length === 0) return { end, alive: false };
      if (pos >= text.length) return { end, alive: true };
      const c = text.charCodeAt(pos);
      const separator = SEPARATOR.test(text[pos]!);
      const next: [number, number, number][] = [];
      const seen = new Set<number>();
      const add = (s: [number, number, number]) => {
        const k = (s[0] * 65536 + s[1]) * 4 + s[2];
        if (!seen.has(k)) {
          seen.add(k);
          next.push(s);
        }
      };
      for (const [i, matched, seps] of states) {
        const form = this.forms[i]!;
        if (form.chars.charCodeAt(matched) === c) add([i, matched + 1, 0]);
        if (form.spaced && separator && seps < SEPARATORS_BETWEEN) add([i, matched, seps + 1]);
      }
      states = next;
      pos++;
    }
  }

  /**
   * Masks every match in `text`. With `final` false (a stream), stops at the first position where text still to
   * come could change the decision and says how far it got: `out` is then exactly the start of what the whole
   * text's masking gives, and `consumed` characters of `text` produced it.
   */
  scan(text: string, final = true): { out: string; consumed: number } {
    if (this.forms.length === 0) return { out: text, consumed: text.length };
    let out = '';
    let copied = 0;
    for (let i = 0; i < text.length; i++) {
      if (this.starts[text.charCodeAt(i)] === 0 || this.cannotStart(text, i)) continue;
      const { end, alive } = this.attempt(text, i);
      if (alive && !final) return { out: out + text.slice(copied, i), consumed: i };
      if (end === -1) continue;
      out += text.slice(copied, i) + KNOWN_SECRET_MASK;
      copied = end;
      i = end - 1;
    }
    return { out: out + text.slice(copied), consumed: text.length };
  }

  mask(text: string): string {
    return this.scan(text, true).out;
  }

  /** True when `text` holds any form of a known secret. */
  holds(text: string): boolean {
    return this.mask(text) !== text;
  }
}

let remembered: string[] = [];
let own: string[] = [];
/** Agents' MCP tokens (issue 39, mcp/keys.ts), apart from `own` so that many agents never push the launch token out. */
let agentKeys: string[] = [];
let current = new SecretMatcher([]);
let generation = 0;

function rebuild(): void {
  current = new SecretMatcher([...new Set([...remembered, ...own, ...agentKeys])]);
  generation++;
}

/**
 * Adds `secret` to the known secrets (the most recent kept first, at most MAX_KNOWN_SECRETS). Values shorter than
 * KNOWN_SECRET_MIN_CHARS are ignored. Called wherever the agent's key is read or saved (agent/config.ts).
 */
export function rememberSecret(secret: string | undefined): void {
  const value = secret?.trim();
  if (!value || value.length < KNOWN_SECRET_MIN_CHARS || remembered[0] === value) return;
  remembered = [value, ...remembered.filter((s) => s !== value)].slice(0, MAX_KNOWN_SECRETS);
  rebuild();
}

/**
 * Adds one of Satchel's own tokens (app.ts: the launch token; mcp/token.ts: the MCP token, at start and when it
 * is made again). Pasted bare into a message it looks like any word, and MCP clients must never be handed a
 * token that opens Satchel; its `?token=` and `Bearer` forms the rules mask anyway.
 */
export function rememberOwnSecret(secret: string | undefined): void {
  const value = secret?.trim();
  if (!value || value.length < KNOWN_SECRET_MIN_CHARS || own[0] === value) return;
  own = [value, ...own.filter((s) => s !== value)].slice(0, MAX_OWN_SECRETS);
  rebuild();
}

/**
 * Adds an agent's MCP token (mcp/keys.ts: when it is made, and when a request presents it: only its hash is
 * stored, so after a restart a token is known again from its first use). At most MAX_AGENT_KEY_SECRETS.
 */
export function rememberAgentKey(secret: string | undefined): void {
  const value = secret?.trim();
  if (!value || value.length < KNOWN_SECRET_MIN_CHARS || agentKeys[0] === value) return;
  agentKeys = [value, ...agentKeys.filter((s) => s !== value)].slice(0, MAX_AGENT_KEY_SECRETS);
  rebuild();
}

/** Forgets every known secret (tests). */
export function forgetSecrets(): void {
  remembered = [];
  own = [];
  agentKeys = [];
  rebuild();
}

/** The matcher of the secrets known now. */
export function knownSecrets(): SecretMatcher {
  return current;
}

/** Changes whenever the known set does: a memo of masked text is stale once it moved. */
export function knownSecretsGeneration(): number {
  return generation;
}

/** `text` with every form of every known secret masked. */
export function maskKnown(text: string): string {
  return current.empty ? text : current.mask(text);
}
