// The agent keys against the database's own life: a start writes nothing (a damaged file is left as it was), a
// damaged database knows no key (fail closed), and a restored backup never brings a revoked agent back.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../store/sessions.js';
import { AgentKeys } from './keys.js';
import { freshStore, removeStore } from '../testing/fresh-store.js';

let dir: string;
let store: SessionStore;

beforeEach(async () => ({ dir, store } = await freshStore('satchel-keys-restore-')));

afterEach(() => removeStore({ dir, store }));

const ALL = [{ kind: 'all' as const, target: '', expires_at: null }];

describe('agent keys and the database', () => {
  it('a start writes no row: the shared token is "Unnamed client" in memory until its first change', async () => {
    const keys = await AgentKeys.open(store);
    expect(keys.unnamedLive()?.name).toBe('Unnamed client');
    expect(await store.transaction((q) => q.all('SELECT id FROM mcp_keys'))).toEqual([]);
    await keys.rename('unnamed', 'Old laptop');
    expect(await store.transaction((q) => q.all('SELECT id, name FROM mcp_keys'))).toEqual([{ id: 'unnamed', name: 'Old laptop' }]);
    // Its grant of everything was stored with it.
    expect(await store.transaction((q) => q.all("SELECT kind FROM mcp_grants WHERE key_id = 'unnamed'"))).toEqual([{ kind: 'all' }]);
    expect((await AgentKeys.open(store)).unnamedLive()?.name).toBe('Old laptop');
  });

  it('a restored backup that still holds a revoked key leaves it revoked, in memory and in the rows', async () => {
    const keys = await AgentKeys.open(store);
    const { key, token } = await keys.create('Codex', 'codex', ALL);
    expect(keys.match(token)?.id).toBe(key.id);
    await keys.revoke(key.id);
    expect(keys.match(token)).toBeUndefined();
    // What a backup taken before the revoke holds: the key live, its hash there.
    const hash = createHash('sha256').update(token).digest('hex');
    await store.transaction((q) => q.run('UPDATE mcp_keys SET revoked_at = NULL, hash = ? WHERE id = ?', [hash, key.id]));
    await keys.reload();
    expect(keys.match(token)).toBeUndefined();
    expect(keys.get(key.id).revoked_at).not.toBeNull();
    expect(await store.transaction((q) => q.all<{ hash: string | null }>('SELECT hash FROM mcp_keys WHERE id = ?', [key.id]))).toEqual([{ hash: null }]);
    // A fresh start on the restored rows refuses it too.
    expect((await AgentKeys.open(store)).match(token)).toBeUndefined();
  });

  it('a key made after the backup is gone with the restore: its token is refused', async () => {
    const keys = await AgentKeys.open(store);
    const { key, token } = await keys.create('Cursor', 'cursor', ALL);
    await store.transaction((q) => q.run('DELETE FROM mcp_keys WHERE id = ?', [key.id]));
    await keys.reload();
    expect(keys.match(token)).toBeUndefined();
    expect(keys.list().map((k) => k.id)).toEqual(['unnamed']);
  });

  it('a damaged database knows no key, not even the shared one, and is not written', async () => {
    const made = await AgentKeys.open(store);
    const { token } = await made.create('Hermes', 'hermes', ALL);
    const damaged = { damage: { kind: 'corrupt' } as never, transaction: () => Promise.reject(new Error('must not be called')) };
    const keys = await AgentKeys.open(damaged);
    expect(keys.list()).toEqual([]);
    expect(keys.match(token)).toBeUndefined();
    expect(keys.unnamedLive()).toBeUndefined();
  });
});
