// Schema 8 (issue 37, finding 4) over a database of schema 7 holding every kind of row: each row, attachment,
// receipt and streamed text comes through as it was, every index row reads the very text it held (search_texts),
// the FTS5 index agrees with them (its integrity check reads them), and searches rank the same rows with the same
// scores and heads (so the same snippets). Then writes of every kind keep the index in step.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DB_PAGE_SIZE, Db, type Queries } from './connection.js';
import { purgeSessionRows } from './purge.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';
import { ftsQuery, indexText } from './search-query.js';
import { rankNewestWithHeads, rewriteDocs, type SearchScope } from './search.js';
import { readSession, writeSession } from './session-rows.js';
import { openStore } from '../../testing/fresh-store.js';

const SECRET = 'ghp_Mk4Zt8Qw2Rx6Lp1Nv5Bc9Hd3Jf7Gs0Ya2Ue4';
const A = '00000000000a';
const B = '00000000000b';
const C = '00000000000c';
const LONG = `${'the stream ran on past the reeds '.repeat(600)}and a heron stood there ${'in the shallows '.repeat(200)}`;

/** Message texts of every shape: kept once (plain, escapes, emoji, long) or twice (redacted, \u0001, NUL, lone surrogate). */
const TEXTS: Array<{ content: string; copy: boolean }> = [
  { content: 'the heron flew over the teal stream', copy: false },
  { content: `my key is ${SECRET} for the heron repo`, copy: true },
  { content: 'a heron\u0001marker from before', copy: true },
  { content: 'heron\u0000nul inside', copy: true },
  { content: 'heron \ud800 lone half', copy: true },
  { content: 'Ärger "quoted" \\ back\nslash\ttab 🦩 heron Ωmega', copy: false },
  { content: '', copy: false },
  { content: LONG, copy: false },
];

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-schema8-'));
  file = path.join(dir, 'satchel.db');
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** One conversation as schema 7 stored it: header, rows, and an index row per text (a message's text redacted). */
async function storeAt7(q: Queries, id: string, header: Record<string, unknown>, messages: unknown[], attachments: Array<{ filename: string; text?: string }>): Promise<void> {
  await q.run('INSERT INTO sessions (id, updated_at, message_count, attachment_count, header, revision) VALUES (?, ?, ?, ?, ?, 3)', [
    id,
    '2026-01-01T00:00:00.000Z',
    messages.length,
    attachments.length,
    JSON.stringify({ session_id: id, workspace: '/w', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', ...header }),
  ]);
  await q.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'title', 0, ?)`, [id, indexText(String(header.title))]);
  for (const [i, m] of messages.entries()) {
    await q.run('INSERT INTO messages (session_id, position, row) VALUES (?, ?, ?)', [id, i, JSON.stringify(m)]);
    const text = indexText((m as { content: string }).content);
    if (text !== '') await q.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'message', ?, ?)`, [id, i, text]);
  }
  for (const [i, a] of attachments.entries()) {
    await q.run('INSERT INTO attachments (session_id, position, record) VALUES (?, ?, ?)', [id, i, JSON.stringify({ filename: a.filename, path: `/att/${id}/${a.filename}`, size: 3, mime: 'text/plain', is_image: false })]);
    await q.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'attachment', ?, ?)`, [id, i, a.filename]);
    if (a.text) await q.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'attachment_text', ?, ?)`, [id, i, indexText(a.text)]);
    else await q.run('INSERT INTO attachment_text_pending (session_id, position) VALUES (?, ?)', [id, i]);
  }
}

async function schema7(db: Db): Promise<void> {
  // Schema 7 by number: a migration appended after 8 (issue 39's 9) must not make this a schema 8 database.
  await migrateSchema(db, 7);
  await db.transaction(async (q) => {
    const messages = TEXTS.map((t, i) =>
      i === 1
        ? { role: 'assistant', content: t.content, timestamp: 1, versions: [{ content: 'an earlier heron reply', timestamp: 0 }], active_version: 1 }
        : { role: i % 2 ? 'assistant' : 'user', content: t.content, timestamp: i, attachments: [] },
    );
    await storeAt7(q, A, { title: 'Heron notes', profile: 'default' }, messages, [{ filename: 'heron-log.txt', text: `log of the heron ${SECRET}` }, { filename: 'teal.csv' }]);
    await storeAt7(q, B, { title: `Work ${SECRET} heron`, profile: 'work' }, [{ role: 'user', content: 'heron at work', timestamp: 1 }], []);
    await storeAt7(q, C, { title: 'Gone heron', profile: 'default', deleted_at: '2026-01-02T00:00:00.000Z' }, [{ role: 'user', content: 'a deleted heron', timestamp: 1 }], []);
    await q.run(`INSERT INTO mcp_receipts (session_id, client, client_version, kind, name, first_at, last_at, count) VALUES (?, 'claude', '1.0', 'conversation', 'Heron notes', 1, 2, 2)`, [A]);
    await q.run(`INSERT INTO streamed_text (session_id, stream_id, kind, text) VALUES (?, 's1', 'content', 'a heron half-said'), (?, 's1', 'reasoning', 'thinking')`, [A, A]);
    await q.run(`INSERT INTO inbox_taken (profile, hash) VALUES ('default', 'abc123')`);
  });
}

const TABLES = [
  'SELECT id, updated_at, message_count, attachment_count, header, revision FROM sessions ORDER BY id',
  'SELECT session_id, position, row FROM messages ORDER BY session_id, position',
  'SELECT session_id, position, record FROM attachments ORDER BY session_id, position',
  'SELECT * FROM attachment_text_pending ORDER BY session_id, position',
  'SELECT * FROM mcp_receipts ORDER BY id',
  'SELECT * FROM streamed_text ORDER BY id',
  'SELECT * FROM inbox_taken ORDER BY id',
];
const QUERIES = ['heron', 'he', 'h', 'teal stream', 'key', 'lone half', 'nul', 'ärger', 'omega', 'reply', 'shallows', 'marker', 'log'];
const SCOPES: SearchScope[] = [
  { profile: 'default', limit: 20 },
  { profile: 'work', limit: 20 },
  { profile: 'default', limit: 3, kinds: ['message'] },
  { profile: 'default', limit: 20, sessionId: A, kinds: ['attachment', 'attachment_text', 'title'] },
];

/** What a search sees: each query's ranked rows with their heads, and the raw bm25 of every matching row. */
async function searches(q: Queries): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const words of QUERIES) {
    const match = ftsQuery(words)!;
    out.push(await q.all('SELECT rowid, bm25(search) AS score FROM search WHERE search MATCH ? ORDER BY rowid', [match]));
    for (const scope of SCOPES) out.push(await rankNewestWithHeads(q, match, scope, 200));
  }
  return out;
}

async function integrity(q: Queries): Promise<void> {
  // rank 1: the index is checked against the content (search_texts) too.
  await q.run(`INSERT INTO search (search, rank) VALUES ('integrity-check', 1)`);
}

describe('schema 8', () => {
  it('keeps every row of a schema 7 database, stores a message text once unless indexing changed it, and searches answer the same', async () => {
    const db = await Db.open(file);
    try {
      await schema7(db);
      await integrity(db);
      const tables = await Promise.all(TABLES.map((sql) => db.all(sql)));
      const docs = await db.all('SELECT id, session_id, kind, position, text FROM search_docs ORDER BY id');
      const found = await searches(db);
      expect(JSON.stringify(found)).toContain('heron');

      await migrateSchema(db);

      expect((await db.get<{ version: number }>('SELECT version FROM schema_version'))!.version).toBe(SCHEMA_VERSION);
      expect(await Promise.all(TABLES.map((sql) => db.all(sql)))).toEqual(tables);
      expect(await db.all('SELECT id, session_id, kind, position, text FROM search_texts ORDER BY id')).toEqual(docs);
      // The copies left: exactly the texts indexing changed or the row's JSON would not give back.
      const copies = await db.all<{ position: number }>(`SELECT position FROM search_docs WHERE session_id = ? AND kind = 'message' AND text IS NOT NULL ORDER BY position`, [A]);
      expect(copies.map((c) => c.position)).toEqual(TEXTS.flatMap((t, i) => (t.copy ? [i] : [])));
      expect(await searches(db)).toEqual(found);
      await integrity(db);
      // The index made again from its content (the view) is the same index.
      await db.run(`INSERT INTO search (search) VALUES ('rebuild')`);
      expect(await searches(db)).toEqual(found);
      // Compacted at the new page size, nothing left free.
      expect((await db.get<{ page_size: number }>('PRAGMA page_size'))!.page_size).toBe(DB_PAGE_SIZE);
      expect((await db.get<{ freelist_count: number }>('PRAGMA freelist_count'))!.freelist_count).toBe(0);
      expect((await db.get<{ journal_mode: string }>('PRAGMA journal_mode'))!.journal_mode).toBe('wal');

      // A message's text is never changed in place under an index row that reads it (its other fields may be).
      await expect(db.run(`UPDATE messages SET row = json_set(row, '$.content', 'other') WHERE session_id = ? AND position = 0`, [A])).rejects.toThrow(/never changed in place/);
      await db.run(`UPDATE messages SET row = json_set(row, '$.marker', 1) WHERE session_id = ? AND position = 0`, [A]);
      await integrity(db);

      // Writes of every kind keep the index in step: an append, a replaced tail, a rewritten index row, a purge.
      const a = (await readSession(db, A))!;
      const appended = { ...a, messages: [...a.messages, { role: 'user', content: 'one more heron', timestamp: 9 }] } as typeof a;
      await db.transaction((q) => writeSession(q, a, appended));
      const cut = { ...appended, messages: [...appended.messages.slice(0, 2), { role: 'user', content: `replaced heron ${SECRET}`, timestamp: 10 }] } as typeof a;
      await db.transaction((q) => writeSession(q, appended, cut));
      await integrity(db);
      const plain = (await db.get<{ id: number; text: string }>(`SELECT id, text FROM search_texts WHERE session_id = ? AND kind = 'message' AND position = 0`, [A]))!;
      await db.transaction((q) => rewriteDocs(q, [{ id: plain.id, was: plain.text, text: 'the [redacted] flew' }]));
      expect(await db.get(`SELECT text FROM search_docs WHERE id = ?`, [plain.id])).toEqual({ text: 'the [redacted] flew' });
      await integrity(db);
      expect(await db.all(`SELECT rowid FROM search WHERE search MATCH 'over'`)).toEqual([]);
      await db.transaction((q) => q.run('DELETE FROM sessions WHERE id = ?', [C]));
      await purgeSessionRows(db, B, 1);
      await integrity(db);
      expect(await db.all(`SELECT DISTINCT session_id FROM search_docs ORDER BY 1`)).toEqual([{ session_id: A }]);
      const left = await db.all<{ rowid: number }>(`SELECT rowid FROM search WHERE search MATCH 'heron' ORDER BY rowid`);
      expect(left.length).toBe((await db.all(`SELECT id FROM search_texts WHERE text LIKE '%heron%'`)).length);
    } finally {
      await db.close();
    }
  });

  it('through the store: the migrated conversation reads whole and a search shows the snippet the text had', async () => {
    const db = await Db.open(file);
    await schema7(db);
    await db.close();
    const store = await openStore(dir);
    try {
      const a = (await store.get(A))!;
      expect(a.messages.map((m) => m.content)).toEqual(TEXTS.map((t) => t.content));
      expect(a.attachments.map((x) => x.filename)).toEqual(['heron-log.txt', 'teal.csv']);
      const found = await store.search('default', 'shallows', 20);
      expect(found.hits.map((h) => h.snippet.map((s) => (s.match ? `[${s.text}]` : s.text)).join(''))).toEqual([
        '…[shallows] in the [shallows] in the [shallows] in the [shallows] in the [shallows] in…',
      ]);
      const secret = await store.search('default', 'key', 20);
      expect(JSON.stringify(secret.hits)).not.toContain(SECRET);
      expect(secret.hits.length).toBe(1);
    } finally {
      await store.close();
    }
  });
});
