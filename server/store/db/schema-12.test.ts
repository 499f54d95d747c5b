// Schema 12 (issue 39: each session's index rows by id, search_docs_session) over a database of schema 11: the
// index is made over the rows already there, and a search among granted conversations answers from them at once.
// The schema 11 database is made with migrations 1-11 and the store's own row writer (migration 12 only adds an
// index and never changes how a conversation is stored).
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Session } from '../sessions.js';
import { Db } from './connection.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';
import { writeSession } from './session-rows.js';
import { freshDir, openStore } from '../../testing/fresh-store.js';

/** The schema this migration was appended to (issue 39's folder grants). */
const BEFORE = 11;
const CONVERSATIONS = 30;

let dir: string;
beforeEach(async () => {
  dir = await freshDir('satchel-schema12-');
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
    profile: 'default',
    messages: [
      { role: 'user', content: `heron question ${i}`, timestamp: 1_700_000_000 + i },
      { role: 'assistant', content: `heron answer ${i}`, timestamp: 1_700_000_001 + i },
    ],
    attachments: [],
  } as unknown as Session;
}

it('a schema 11 database gets search_docs_session over its rows, and granted searches answer from them', async () => {
  const db = await Db.open(path.join(dir, 'satchel.db'));
  await migrateSchema(db, BEFORE);
  await db.transaction(async (q) => {
    for (let i = 0; i < CONVERSATIONS; i++) await writeSession(q, undefined, conversation(i));
  });
  expect(await db.get(`SELECT name FROM sqlite_master WHERE name = 'search_docs_session'`)).toBeUndefined();
  const rows = (await db.get<{ n: number }>('SELECT count(*) AS n FROM search_docs'))!.n;
  await db.close();

  const store = await openStore(dir);
  try {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(12);
    expect(await store.query((q) => q.get('SELECT version FROM schema_version'))).toEqual({ version: SCHEMA_VERSION });
    expect(await store.query((q) => q.all(`SELECT name FROM pragma_index_info('search_docs_session') ORDER BY seqno`))).toEqual([{ name: 'session_id' }, { name: 'id' }]);
    expect(await store.query((q) => q.get('SELECT count(*) AS n FROM search_docs INDEXED BY search_docs_session WHERE session_id > \'\''))).toEqual({ n: rows });
    // Three old conversations granted, among newer ones that use the word too: their rows only, all of them.
    const granted = [conversation(2).session_id, conversation(3).session_id, conversation(17).session_id];
    const hits = await store.search('default', 'heron', 20, { sessionIds: granted });
    expect(hits.hits.map((h) => `${h.listing.session_id}:${h.kind}:${h.position}`).sort()).toEqual(granted.flatMap((id) => [`${id}:message:0`, `${id}:message:1`]).sort());
  } finally {
    await store.close();
  }
});
