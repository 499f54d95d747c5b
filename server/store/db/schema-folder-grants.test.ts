// The folder grants' migration (issue 39; mcp_grants rebuilt for its CHECK) over a database of the schema before
// it (main's folders, schema 10): every key keeps its grants, ids and order included, the cascade from a key still
// holds, and a folder grant can be stored; a kind that is none is still refused by the database itself.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadKeys, replaceGrants } from '../mcp-keys.js';
import { Db } from './connection.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';
import { openStore } from '../../testing/fresh-store.js';

/** The schema this migration was appended to (issue 38's folders). */
const BEFORE = 10;

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-folder-grants-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

it('a schema 10 database keeps every grant after the upgrade and takes folder grants', async () => {
  const db = await Db.open(path.join(dir, 'satchel.db'));
  await migrateSchema(db, BEFORE);
  await db.transaction(async (q) => {
    await q.run(`INSERT INTO mcp_keys (id, name, kind, hash, created_at) VALUES ('k1', 'Codex', 'codex', 'h1', 1), ('k2', 'Cursor', 'cursor', 'h2', 2)`);
    await q.run(
      `INSERT INTO mcp_grants (key_id, kind, target, expires_at) VALUES ('k1', 'conversation', 'abc', NULL), ('k1', 'workspace', '/w', 99), ('k2', 'inbox', '', NULL), ('k2', 'all', '', NULL)`,
    );
  });
  const before = await db.all('SELECT id, key_id, kind, target, expires_at FROM mcp_grants ORDER BY id');
  await expect(db.run(`INSERT INTO mcp_grants (key_id, kind, target) VALUES ('k1', 'folder', '0123456789ab')`)).rejects.toThrow(/CHECK/);
  await db.close();

  const store = await openStore(dir);
  try {
    expect(await store.query((q) => q.get<{ version: number }>('SELECT version FROM schema_version'))).toEqual({ version: SCHEMA_VERSION });
    expect(await store.query((q) => q.all('SELECT id, key_id, kind, target, expires_at FROM mcp_grants ORDER BY id'))).toEqual(before);
    await store.transaction((q) => replaceGrants(q, 'k1', [{ kind: 'folder', target: '0123456789ab', expires_at: null }]));
    const keys = await store.query((q) => loadKeys(q));
    expect(keys.map((k) => [k.id, k.grants])).toEqual([
      ['k1', [{ kind: 'folder', target: '0123456789ab', expires_at: null }]],
      ['k2', [{ kind: 'inbox', target: '', expires_at: null }, { kind: 'all', target: '', expires_at: null }]],
    ]);
    await expect(store.transaction((q) => q.run(`INSERT INTO mcp_grants (key_id, kind, target) VALUES ('k1', 'everything', '')`))).rejects.toThrow(/CHECK/);
    // The key's grants still go with it.
    await store.transaction((q) => q.run(`DELETE FROM mcp_keys WHERE id = 'k2'`));
    expect(await store.query((q) => q.all(`SELECT kind FROM mcp_grants WHERE key_id = 'k2'`))).toEqual([]);
  } finally {
    await store.close();
  }
});
