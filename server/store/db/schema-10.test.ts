// Schema 10 (issue 38, folders) over a database of schema 9 (main's agent keys, session 14): every conversation of
// every profile is still listed and reads whole after the upgrade, the agent keys stay, and folders work at once.
// The schema 9 database is made with migrations 1-9 and the store's own row writer, which is main's schema 9 code:
// the folders branch adds a table and never changes how a conversation is stored.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../sessions.js';
import { createFolder, listFolders, moveToFolder } from '../folders.js';
import { Db } from './connection.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';
import { writeSession } from './session-rows.js';
import { openStore } from '../../testing/fresh-store.js';

/** Main's schema when the folders migration was appended (issue 39's agent keys). */
const MAIN_SCHEMA = 9;
const CONVERSATIONS = 12;

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-schema10-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function conversation(i: number): Session {
  const id = i.toString(16).padStart(12, '0');
  const at = new Date(Date.UTC(2026, 0, 1 + i)).toISOString();
  return {
    session_id: id,
    title: `Conversation ${i}`,
    workspace: '/w',
    created_at: at,
    updated_at: at,
    profile: i % 3 === 0 ? 'work' : 'default',
    ...(i === 1 ? { pinned: true } : {}),
    ...(i === 2 ? { archived: true } : {}),
    messages: [
      { role: 'user', content: `question ${i}`, timestamp: 1_700_000_000 + i },
      { role: 'assistant', content: `answer ${i}`, timestamp: 1_700_000_001 + i },
    ],
    attachments: [],
  } as unknown as Session;
}

describe('schema 10 (folders)', () => {
  it('a schema 9 database upgrades with every conversation listed and whole, its agent keys kept, folders usable', async () => {
    const file = path.join(dir, 'satchel.db');
    const db = await Db.open(file);
    await migrateSchema(db, MAIN_SCHEMA);
    await db.transaction(async (q) => {
      for (let i = 0; i < CONVERSATIONS; i++) await writeSession(q, undefined, conversation(i));
      await q.run(`INSERT INTO mcp_keys (id, name, kind, hash, created_at) VALUES ('k1', 'Claude Code', 'claude', 'h1', 1)`);
    });
    expect((await db.get<{ version: number }>('SELECT version FROM schema_version'))!.version).toBe(MAIN_SCHEMA);
    await db.close();

    const store = await openStore(dir);
    try {
      expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(10);
      const version = await store.query((q) => q.get<{ version: number }>('SELECT version FROM schema_version'));
      expect(version!.version).toBe(SCHEMA_VERSION);
      const listed = store.list();
      expect(listed.map((s) => s.session_id).sort()).toEqual(Array.from({ length: CONVERSATIONS }, (_, i) => conversation(i).session_id).sort());
      for (let i = 0; i < CONVERSATIONS; i++) {
        const s = (await store.get(conversation(i).session_id))!;
        expect(s.title).toBe(`Conversation ${i}`);
        expect(s.profile).toBe(conversation(i).profile);
        expect(s.messages.map((m) => m.content)).toEqual([`question ${i}`, `answer ${i}`]);
        expect(s.folder).toBeUndefined();
      }
      expect(listed.find((s) => s.session_id === conversation(1).session_id)?.pinned).toBe(true);
      expect(listed.find((s) => s.session_id === conversation(2).session_id)?.archived).toBe(true);
      expect(await store.query((q) => q.all('SELECT id, name FROM mcp_keys'))).toEqual([{ id: 'k1', name: 'Claude Code' }]);

      // The new table works on the upgraded database.
      const folder = await createFolder(store, 'default', 'Car');
      const moved = await moveToFolder(store, 'default', conversation(4).session_id, folder.id);
      expect(moved.folder).toBe(folder.id);
      expect((await store.query((q) => listFolders(q, 'default'))).map((f) => f.name)).toEqual(['Car']);
    } finally {
      await store.close();
    }
  });
});
