// B3's judgement of a name and its value: does the name count, is it a strong keyword, is the value a lookup or
// opaque (redaction.md, "More assignment shapes").
import { hasAlphanumeric } from './chars.js';
import { isMask } from './mask.js';

/** Words of a name: split at non-alphanumerics and camel-case steps, lower-cased (`apiKey` → api, key). */
export function words(name: string): string[] {
  return (name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? []).map((w) => w.toLowerCase());
}

export const NAME_WORDS = new Set(['token', 'secret', 'passwd', 'password', 'credential', 'credentials', 'apikey']);

/** A name counts when a keyword stands as its own word (`MYTOKEN`, `KEYBOARD`, `tokenizer` do not count). */
export function nameCounts(ws: readonly string[], withAuth: boolean): boolean {
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    if (NAME_WORDS.has(w) || (withAuth && w === 'auth')) return true;
    if (w === 'api' && ws[i + 1] === 'key') return true;
  }
  return false;
}

const STRONG_WORDS = new Set(['secret', 'secrets', 'passwd', 'password', 'pass', 'pw', 'credential', 'credentials', 'auth', 'bearer']);
const KEY_OWNERS = new Set(['api', 'auth', 'access', 'refresh', 'session', 'id', 'bearer']);
const KEY_WORDS = new Set(['key', 'token']);
const COMPOUNDS = new Set([...KEY_OWNERS].flatMap((owner) => [...KEY_WORDS].map((k) => owner + k)));

/** A strong keyword: the value is masked whatever it looks like. */
export function isStrongName(ws: readonly string[]): boolean {
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    if (STRONG_WORDS.has(w) || COMPOUNDS.has(w)) return true;
    if (KEY_OWNERS.has(w) && KEY_WORDS.has(ws[i + 1] ?? '')) return true;
    if (w === 'key' && ws[i + 1] === 'material') return true;
  }
  return false;
}

const PASSWORD_WORDS = new Set(['pass', 'pw', 'passwd', 'password']);
const ENV_LOOKUP = /^(?:os\.getenv\(|os\.environ\b|process\.env\b|\$ENV\{|getenv\(|System\.getenv\(|ENV\[)/;
const VARIABLE_OR_PATH = /^(?:\$[A-Za-z_{]|~\/|\/)/;
const HEX_RUN = /^[0-9A-Fa-f]{16,}$/;
const TOKEN_RUN = /^[A-Za-z0-9_./+=-]{20,}$/;
export const MIXED_MIN = 12;

function looksOpaque(value: string): boolean {
  if (HEX_RUN.test(value) || TOKEN_RUN.test(value)) return true;
  if (value.length < MIXED_MIN) return false;
  const classes = Number(/[a-z]/.test(value)) + Number(/[A-Z]/.test(value)) + Number(/[0-9]/.test(value));
  return classes >= 2;
}

/** `api_key=api_key`, `password=self.password`: code passing a credential along by name, not a credential. */
function namesItself(value: string, name: string): boolean {
  if (value.length > NAME_MAX || !/^[A-Za-z_][A-Za-z0-9_.]*$/.test(value)) return false;
  return value.slice(value.lastIndexOf('.') + 1).toLowerCase() === name.replace(/^-+/, '').toLowerCase();
}
/** Longer than this, a value is no variable name (and is masked under a counting name: fail closed, and linear). */
export const NAME_MAX = 256;
export const VALUE_POLICY_MAX = 4096;

/** Whether the value under a counting name is masked (B3's last paragraph). */
export function shouldMask(ws: readonly string[], value: string, name = ''): boolean {
  if (!hasAlphanumeric(value) || isMask(value) || ENV_LOOKUP.test(value) || namesItself(value, name)) return false;
  if (value.length > VALUE_POLICY_MAX) return true;
  if (VARIABLE_OR_PATH.test(value) && !ws.some((w) => PASSWORD_WORDS.has(w))) return false;
  return isStrongName(ws) || looksOpaque(value);
}

/** A4 and the other shapes also keep an environment lookup: that is code naming a credential, not one. */
export function isEnvLookup(value: string): boolean {
  return ENV_LOOKUP.test(value);
}
