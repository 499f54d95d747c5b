// Each agent its own key (issue 39). A key is a name, a kind and a token shown once; the database keeps only
// the token's SHA-256 (store/mcp-keys.ts). Every /mcp request is matched here (handlers/mcp.ts), so a revoked or
// paused key is refused on its very next request, an open MCP session's too. The keys are held in memory (a few
// dozen rows at most, MAX_AGENT_KEYS) and written through, so a request never waits on the database to be let in.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { HttpError, ValueError } from '../core/errors.js';
import { log } from '../core/log.js';
import { rememberAgentKey } from '../redact/index.js';
import type { Queries } from '../store/db/connection.js';
import type { SessionStore } from '../store/sessions.js';
import {
  AGENT_KINDS,
  ensureUnnamedKey,
  insertKey,
  loadKeys,
  replaceGrants,
  updateKey,
  UNNAMED_KEY_ID,
  UNNAMED_KEY_NAME,
  type AgentKind,
  type StoredGrant,
  type StoredKey,
} from '../store/mcp-keys.js';

/** Keys made in all, revoked ones included (their rows are the ledger's names): far more than anyone connects. */
export const MAX_AGENT_KEYS = 64;
/** A key's name, as the panel shows it. */
export const MAX_KEY_NAME_CHARS = 64;
/** Grants of one key. */
export const MAX_GRANTS_PER_KEY = 200;
/** Random bytes of a token: 256 bits. */
export const AGENT_TOKEN_BYTES = 32;
/** Every agent token starts so: a person (and a secret scanner) can tell one in a pasted text. */
export const AGENT_TOKEN_PREFIX = 'satchel_ak_';
/** `last_used_at` is written at most this often per key: a client polling does not make a write per request. */
export const LAST_USED_WRITE_MS = 60_000;

export const KEY_NOT_FOUND = 'Agent key not found';
export const KEY_REVOKED = 'This agent key is revoked';
/** What a paused key's request answers (403): the agent is told, not misled into "wrong token". */
export const KEY_PAUSED = "This agent's access to Satchel is paused";

export type KeyCheck = { ok: true; key: StoredKey } | { ok: false; paused: true };

const hashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

function cleanName(name: unknown): string {
  if (typeof name !== 'string') throw new ValueError('name must be a string');
  const clean = name.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '').trim();
  if (clean === '') throw new ValueError('name must not be empty');
  if (clean.length > MAX_KEY_NAME_CHARS) throw new ValueError(`name too long (max ${MAX_KEY_NAME_CHARS} characters)`);
  return clean;
}

export function agentKind(kind: unknown): AgentKind {
  if (kind === undefined) return 'other';
  if (typeof kind !== 'string' || !(AGENT_KINDS as readonly string[]).includes(kind)) throw new ValueError(`kind must be one of ${AGENT_KINDS.join(', ')}`);
  return kind as AgentKind;
}

export class AgentKeys {
  private keys: StoredKey[];
  /** hash → key, for the keys that are not revoked. */
  private byHash = new Map<string, StoredKey>();
  private lastWritten = new Map<string, number>();

  private constructor(
    private readonly sessions: Pick<SessionStore, 'transaction' | 'damage'>,
    keys: StoredKey[],
  ) {
    this.keys = keys;
    this.index();
  }

  static async open(sessions: Pick<SessionStore, 'transaction' | 'damage'>, now = Date.now()): Promise<AgentKeys> {
    return new AgentKeys(sessions, await storedKeys(sessions, now));
  }

  /**
   * The keys again, from a database put in place by a restore. A key revoked since that backup stays revoked (its
   * revocation is written into the restored rows): a backup never brings a revoked agent back. A key made since the
   * backup is not in it and so is gone: its token is refused, as for any unknown token.
   */
  async reload(now = Date.now()): Promise<void> {
    const revoked = this.keys.filter((k) => k.revoked_at !== null);
    const keys = await storedKeys(this.sessions, now);
    for (const gone of revoked) {
      const back = keys.find((k) => k.id === gone.id);
      if (!back || back.revoked_at !== null) continue;
      await this.save(back, (q) => updateKey(q, back.id, { revoked_at: gone.revoked_at ?? now }));
      back.revoked_at = gone.revoked_at;
      back.hash = null;
    }
    this.keys = keys;
    this.index();
  }

  private index(): void {
    this.byHash = new Map(this.keys.filter((k) => k.hash !== null && k.revoked_at === null).map((k) => [k.hash!, k]));
  }

  list(): readonly StoredKey[] {
    return this.keys;
  }

  get(id: unknown): StoredKey {
    const key = typeof id === 'string' ? this.keys.find((k) => k.id === id) : undefined;
    if (!key) throw new HttpError(404, KEY_NOT_FOUND);
    return key;
  }

  /** The live (not revoked) key `id`, or undefined: what a tool asks before each read. */
  live(id: string): StoredKey | undefined {
    const key = this.keys.find((k) => k.id === id);
    return key && key.revoked_at === null ? key : undefined;
  }

  /**
   * The key whose token `given` is, if any. The lookup is by the token's SHA-256 (a map probe reveals nothing of
   * the token by its timing), then the hashes are compared in constant time.
   */
  match(given: string): StoredKey | undefined {
    const hash = hashOf(given);
    const key = this.byHash.get(hash);
    if (!key || !timingSafeEqual(Buffer.from(hash, 'hex'), Buffer.from(key.hash!, 'hex'))) return undefined;
    // A token seen in use is masked from now on, after a restart too (only its hash was kept).
    rememberAgentKey(given);
    return key;
  }

  /** Note a use: in memory at once, on disk at most every LAST_USED_WRITE_MS. */
  touch(key: StoredKey, now = Date.now()): void {
    key.last_used_at = now;
    if (now - (this.lastWritten.get(key.id) ?? 0) < LAST_USED_WRITE_MS) return;
    this.lastWritten.set(key.id, now);
    void this.save(key, (q) => updateKey(q, key.id, { last_used_at: now })).catch((err: unknown) => log.debug('mcp: last use not saved', err));
  }

  /** A new key; its token is returned here once and never again. */
  async create(name: unknown, kind: unknown, grants: StoredGrant[], now = Date.now()): Promise<{ key: StoredKey; token: string }> {
    if (this.keys.length >= MAX_AGENT_KEYS) throw new ValueError(`Too many agent keys (max ${MAX_AGENT_KEYS}); revoked keys count until Satchel is reset`);
    const token = AGENT_TOKEN_PREFIX + randomBytes(AGENT_TOKEN_BYTES).toString('base64url');
    const key: StoredKey = {
      id: randomUUID(),
      name: cleanName(name),
      kind: agentKind(kind),
      hash: hashOf(token),
      created_at: now,
      last_used_at: null,
      paused: false,
      revoked_at: null,
      grants: checkedGrants(grants),
    };
    // Known to the redactor before anything can echo it (the creation answer itself is sent unredacted).
    rememberAgentKey(token);
    await this.sessions.transaction((q) => insertKey(q, key));
    this.keys.push(key);
    this.index();
    return { key, token };
  }

  async rename(id: unknown, name: unknown): Promise<StoredKey> {
    const key = this.get(id);
    const clean = cleanName(name);
    await this.save(key, (q) => updateKey(q, key.id, { name: clean }));
    key.name = clean;
    return key;
  }

  async setPaused(id: unknown, paused: unknown): Promise<StoredKey> {
    const key = this.get(id);
    if (typeof paused !== 'boolean') throw new ValueError('paused must be true or false');
    if (key.revoked_at !== null) throw new ValueError(KEY_REVOKED);
    await this.save(key, (q) => updateKey(q, key.id, { paused }));
    key.paused = paused;
    return key;
  }

  /** Revoked for good: its hash is forgotten, its row stays (the ledger names it). Revoking twice is a no-op. */
  async revoke(id: unknown, now = Date.now()): Promise<StoredKey> {
    const key = this.get(id);
    if (key.revoked_at !== null) return key;
    await this.save(key, (q) => updateKey(q, key.id, { revoked_at: now }));
    key.revoked_at = now;
    key.hash = null;
    this.index();
    return key;
  }

  async setGrants(id: unknown, grants: StoredGrant[]): Promise<StoredKey> {
    const key = this.get(id);
    if (key.revoked_at !== null) throw new ValueError(KEY_REVOKED);
    const checked = checkedGrants(grants);
    await this.save(key, (q) => replaceGrants(q, key.id, checked));
    key.grants = checked;
    return key;
  }

  /** A change to `key`'s row, the unnamed key's row made first where it is not stored yet (storedKeys). */
  private save(key: StoredKey, work: (q: Queries) => Promise<unknown>): Promise<void> {
    return this.sessions.transaction(async (q) => {
      if (key.id === UNNAMED_KEY_ID) await ensureUnnamedKey(q, key.created_at);
      await work(q);
    });
  }

  /** Whether the shared MCP token still opens /mcp: until its key, "Unnamed client", is revoked. */
  unnamedLive(): StoredKey | undefined {
    return this.live(UNNAMED_KEY_ID);
  }
}

/**
 * The stored keys, the unnamed one made first where missing. A damaged database (store/db/damage.ts) is never
 * written, and what it holds cannot be trusted to say which key was revoked: no key is known then, so every agent
 * token is refused until a backup is restored (fail closed; the conversations are unreadable then anyway).
 */
async function storedKeys(sessions: Pick<SessionStore, 'transaction' | 'damage'>, now: number): Promise<StoredKey[]> {
  if (sessions.damage) return [];
  try {
    // Read only: the unnamed key's row is written with its first change (AgentKeys.save), so a start writes nothing,
    // and a database found damaged later in this start is left exactly as it was.
    const keys = await sessions.transaction((q) => loadKeys(q));
    return keys.some((k) => k.id === UNNAMED_KEY_ID) ? keys : [unnamedKey(now), ...keys];
  } catch (err) {
    // Found damaged by this very transaction: as above.
    if (sessions.damage) return [];
    throw err;
  }
}

/** The unnamed key as it is before its row exists: the shared token, granted everything. */
function unnamedKey(now: number): StoredKey {
  return { id: UNNAMED_KEY_ID, name: UNNAMED_KEY_NAME, kind: 'other', hash: null, created_at: now, last_used_at: null, paused: false, revoked_at: null, grants: [{ kind: 'all', target: '', expires_at: null }] };
}

function checkedGrants(grants: StoredGrant[]): StoredGrant[] {
  if (grants.length > MAX_GRANTS_PER_KEY) throw new ValueError(`Too many grants (max ${MAX_GRANTS_PER_KEY})`);
  return grants;
}

// Keyed by the application object (app.ts attaches them once it is built), as mcp/token.ts keeps the MCP token.
const attached = new WeakMap<object, AgentKeys>();

export function attachAgentKeys(app: object, keys: AgentKeys): void {
  attached.set(app, keys);
}

/** The app's agent keys; undefined for an app built without them (tests of other parts). */
export function agentKeysOf(app: object): AgentKeys | undefined {
  return attached.get(app);
}
