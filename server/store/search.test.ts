// The search store: what an index of an older Satchel becomes (schema 1 to 2, its attachments' text indexed by
// the background pass, its unredacted rows rewritten when found), and attachment texts kept with their
// attachments when rows move.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withDatabase } from '../testing/stored-session.js';
import { startAttachmentTextBackfill } from '../search/backfill.js';
import { Db } from './db/connection.js';
import { migrateSchema, SCHEMA_VERSION } from './db/schema.js';
import { MAX_INDEXED_ATTACHMENT_CHARS } from './db/search-query.js';
import { MAX_RANKED_ROWS } from './db/search.js';
import { SearchReader, type SearchRun } from './db/search-reader.js';
import type { Queries } from './db/connection.js';
import { SessionStore } from './sessions.js';
import { SEARCH_STOPPED, SEARCH_STOPPED_EMPTY, searchSessions, type SearchHits } from './search.js';
import { SNIPPET_ELLIPSIS } from './db/search-query.js';

let dir: string;
let store: SessionStore;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-search-'));
  store = new SessionStore(dir);
});
afterEach(async () => {
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const withDb = <T>(work: (db: Db) => Promise<T>): Promise<T> => withDatabase(dir, work);

const SECRET = 'ghp_Mk4Zt8Qw2Rx6Lp1Nv5Bc9Hd3Jf7Gs0Ya2Ue4';
const shown = (found: SearchHits) => found.hits.map((h) => `${h.kind}:${h.snippet.map((s) => (s.match ? `[${s.text}]` : s.text)).join('')}`);

/**
 * A database as Satchel wrote it at schema 1: a session whose message (indexed unredacted, as schema 1 did) holds
 * a key, and two attachments: a text file with a word found nowhere else, and an image.
 */
async function schemaOneDatabase(): Promise<string> {
  const id = 'a1b2c3d4e5f6';
  const folder = path.join(dir, 'attachments', id);
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(path.join(folder, 'log.txt'), 'the shelduck returned on the 4th');
  await fs.writeFile(path.join(folder, 'pic.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
  await withDb(async (db) => {
    await migrateSchema(db, 1);
    const header = { session_id: id, title: 'Old one', workspace: '/w', profile: 'default', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
    await db.run('INSERT INTO sessions (id, updated_at, message_count, attachment_count, header) VALUES (?, ?, 1, 2, ?)', [id, header.updated_at, JSON.stringify(header)]);
    const text = `token ${SECRET} for the teal repo`;
    await db.run('INSERT INTO messages (session_id, position, row) VALUES (?, 0, ?)', [id, JSON.stringify({ role: 'user', content: text, timestamp: 1 })]);
    for (const [i, name] of ['log.txt', 'pic.png'].entries()) {
      const record = { filename: name, path: path.join(folder, name), size: 8, mime: 'text/plain', is_image: name.endsWith('.png') };
      await db.run('INSERT INTO attachments (session_id, position, record) VALUES (?, ?, ?)', [id, i, JSON.stringify(record)]);
      await db.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'attachment', ?, ?)`, [id, i, name]);
    }
    await db.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'title', 0, 'Old one'), (?, 'message', 0, ?)`, [id, id, text]);
  });
  return id;
}

describe('the search index of an older database', () => {
  it('is migrated from schema 1: every row kept, the earlier attachments indexed by the background pass', async () => {
    const id = await schemaOneDatabase();
    await store.load();
    await withDb(async (db) => {
      expect(await db.all('SELECT version FROM schema_version')).toEqual([{ version: SCHEMA_VERSION }]);
      expect(await db.all('SELECT position FROM attachment_text_pending WHERE session_id = ? ORDER BY position', [id])).toEqual([{ position: 0 }, { position: 1 }]);
      await db.run("INSERT INTO search (search) VALUES ('integrity-check')");
    });
    expect((await store.search('default', 'old', 20)).hits.map((h) => h.kind)).toEqual(['title']);
    expect((await store.search('default', 'shelduck', 20)).hits).toEqual([]);
    const backfill = startAttachmentTextBackfill(dir, store);
    await backfill.idle;
    await backfill.stop();
    const found = await store.search('default', 'shelduck', 20);
    expect(shown(found)).toEqual(['attachment_text:the [shelduck] returned on the 4th']);
    expect(found.hits[0]).toMatchObject({ attachment: 'log.txt', position: 0 });
    await withDb(async (db) => {
      expect(await db.all('SELECT * FROM attachment_text_pending')).toEqual([]);
      // The image has no text: nothing indexed for it.
      expect(await db.all(`SELECT position FROM search_docs WHERE kind = 'attachment_text'`)).toEqual([{ position: 0 }]);
    });
  });

  it('rewrites an unredacted row when a search meets it: the key is not found and never in a snippet', async () => {
    await schemaOneDatabase();
    await store.load();
    expect((await store.search('default', SECRET.slice(8, 28), 20)).hits).toEqual([]);
    const found = await store.search('default', 'teal', 20);
    expect(shown(found)).toHaveLength(1);
    expect(shown(found)[0]).not.toContain(SECRET.slice(6, -4));
    expect(shown(found)[0]).toContain('[teal]');
    await withDb(async (db) => {
      const rows = await db.all<{ text: string }>(`SELECT text FROM search_texts WHERE kind = 'message'`);
      expect(rows[0]!.text).not.toContain(SECRET);
    });
  });
});

describe('a database indexed before issue 35 (schema 6)', () => {
  it('has every attachment indexed again: a log whole (it was cut at 100,000), a transcript a turn indexed kept', async () => {
    const id = 'f6e5d4c3b2a1';
    const folder = path.join(dir, 'attachments', id);
    await fs.mkdir(folder, { recursive: true });
    const log = `${'INFO request handled in 12 ms\n'.repeat(4_000)}ERROR the avocet shard is corrupt\n`;
    expect(log.indexOf('avocet')).toBeGreaterThan(100_000);
    await fs.writeFile(path.join(folder, 'server.log'), log);
    await fs.writeFile(path.join(folder, 'memo.wav'), Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt '), Buffer.alloc(40)]));
    await withDb(async (db) => {
      await migrateSchema(db, 6);
      const header = { session_id: id, title: 'Before', workspace: '/w', profile: 'default', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
      await db.run('INSERT INTO sessions (id, updated_at, message_count, attachment_count, header, revision) VALUES (?, ?, 0, 2, ?, 1)', [id, header.updated_at, JSON.stringify(header)]);
      for (const [i, name] of ['server.log', 'memo.wav'].entries()) {
        const record = { filename: name, path: path.join(folder, name), size: 8, mime: name.endsWith('.wav') ? 'audio/wav' : 'text/plain', is_image: false };
        await db.run('INSERT INTO attachments (session_id, position, record) VALUES (?, ?, ?)', [id, i, JSON.stringify(record)]);
      }
      // As the index of schema 6 held them: the log's first 100,000 characters, the transcript a turn made.
      await db.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'attachment_text', 0, ?), (?, 'attachment_text', 1, 'remember the heron survey')`, [id, log.slice(0, 100_000), id]);
    });
    await store.load();
    expect((await store.search('default', 'avocet', 20)).hits).toEqual([]);
    const backfill = startAttachmentTextBackfill(dir, store);
    await backfill.idle;
    await backfill.stop();
    const found = await store.search('default', 'avocet', 20);
    expect(found.hits.map((h) => [h.kind, h.attachment])).toEqual([['attachment_text', 'server.log']]);
    expect(shown(found)[0]).toContain('ERROR the [avocet] shard is corrupt');
    expect((await store.search('default', 'heron', 20)).hits.map((h) => h.attachment)).toEqual(['memo.wav']);
    await withDb(async (db) => expect(await db.all('SELECT * FROM attachment_text_pending')).toEqual([]));
  });
});

describe('attachment texts', () => {
  it('of a conversation stored whole (an import) are indexed by the background pass', async () => {
    await store.load();
    const id = store.freshId();
    const folder = path.join(dir, 'attachments', id);
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, 'trip.txt'), 'a spoonbill at the salt pans');
    const now = new Date().toISOString();
    const trip = { filename: 'trip.txt', path: path.join(folder, 'trip.txt'), size: 28, mime: 'text/plain', is_image: false };
    await store.insert({ session_id: id, title: 'Imported', workspace: '/w', profile: 'default', created_at: now, updated_at: now, messages: [], attachments: [trip] });
    const backfill = startAttachmentTextBackfill(dir, store);
    await backfill.idle;
    await backfill.stop();
    expect(shown(await store.search('default', 'spoonbill', 20))).toEqual(['attachment_text:a [spoonbill] at the salt pans']);
  });


  it('move with their attachment when an earlier one is removed, and go with the one removed', async () => {
    await store.load();
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    const att = (name: string) => ({ filename: name, path: `/s/${name}`, size: 1, mime: 'text/plain', is_image: false });
    await store.addAttachment(id, att('a.txt'));
    await store.addAttachment(id, att('b.txt'));
    expect(await store.indexAttachmentText(id, '/s/a.txt', 'the gannet colony')).toBe(true);
    expect(await store.indexAttachmentText(id, '/s/b.txt', 'the puffin burrow')).toBe(true);
    await store.update(id, (s) => {
      s.attachments = s.attachments.slice(1);
    });
    expect((await store.search('default', 'gannet', 20)).hits).toEqual([]);
    const puffin = await store.search('default', 'puffin', 20);
    expect(puffin.hits.map((h) => [h.kind, h.attachment, h.position])).toEqual([['attachment_text', 'b.txt', 0]]);
  });

  it('index at most MAX_INDEXED_ATTACHMENT_CHARS characters of one attachment', async () => {
    await store.load();
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    await store.addAttachment(id, { filename: 'big.txt', path: '/s/big.txt', size: 1, mime: 'text/plain', is_image: false });
    const filler = 'word '.repeat(MAX_INDEXED_ATTACHMENT_CHARS / 5 - 2);
    await store.indexAttachmentText(id, '/s/big.txt', `${filler}merganser ${'x '.repeat(100)}eider`);
    expect((await store.search('default', 'merganser', 20)).hits).toHaveLength(1);
    expect((await store.search('default', 'eider', 20)).hits).toEqual([]);
    expect(await store.indexAttachmentText(id, '/s/none.txt', 'no such attachment')).toBe(false);
  });
});

describe('a word in more rows than are ranked', () => {
  it(`ranks the newest MAX_RANKED_ROWS of them and says the answer is not complete`, async () => {
    await store.load();
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    await store.update(id, (s) => {
      for (let i = 0; i <= MAX_RANKED_ROWS; i++) s.messages.push({ role: 'user', content: i === 0 ? 'wigeon wigeon wigeon wigeon' : `a wigeon number ${i}`, timestamp: i });
    });
    const found = await store.search('default', 'wigeon', 5);
    expect(found.hits).toHaveLength(5);
    expect(found.complete).toBe(false);
    // The oldest row, the best by bm25, lies past the newest MAX_RANKED_ROWS: not ranked.
    expect(found.hits.map((h) => h.position)).not.toContain(0);
    // One fewer matching row: all ranked, the best first.
    await store.update(id, (s) => {
      s.messages.pop();
    });
    const all = await store.search('default', 'wigeon', 5);
    expect(all.hits[0]!.position).toBe(0);
    expect(all.complete).toBe(false);
    expect((await store.search('default', 'wigeon', 50)).complete).toBe(false);
  });
});

describe('versions', () => {
  it('index only the version shown: an edited message is found by its new text, never by the one it replaced', async () => {
    await store.load();
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    await store.addMessage(id, 'the first draft mentions a stint', []);
    await store.addVersion(id, 0, 'the second draft mentions a knot', []);
    expect((await store.search('default', 'stint', 20)).hits).toEqual([]);
    expect((await store.search('default', 'knot', 20)).hits.map((h) => [h.kind, h.position])).toEqual([['message', 0]]);
    // The replaced text is kept inside the row (`_versions`), as the store keeps it, and is not in the index.
    expect(JSON.stringify((await store.get(id))!.messages[0])).toContain('stint');
  });
});

/** Times `work`, in ms. */
async function timed<T>(work: Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work;
  return { ms: performance.now() - started, value };
}

describe('a row with tens of thousands of hits (issue 33)', () => {
  /** Generous for a loaded two-core machine; FTS5's snippet() took 27 s on the message alone, quiet. */
  const PROMPT_MS = 10_000;

  it('a 100,000-character message of `0 0 0 …` and a 100 KB CSV of zeros are searched while a write completes promptly', async () => {
    await store.load();
    const zeros = `${'0 '.repeat(49_999)}0`;
    expect(zeros.length).toBe(99_999);
    const { session_id: message } = await store.create({ workspace: '/w', profile: 'default' });
    await store.addMessage(message, zeros, []);
    const { session_id: csv } = await store.create({ workspace: '/w', profile: 'default' });
    await store.addAttachment(csv, { filename: 'zeros.csv', path: '/s/zeros.csv', size: 100_000, mime: 'text/csv', is_image: false });
    expect(await store.indexAttachmentText(csv, '/s/zeros.csv', `${'0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n'.repeat(2_500)}`)).toBe(true);
    const { session_id: other } = await store.create({ workspace: '/w', profile: 'default' });

    const search = timed(store.search('default', '0', 20));
    const write = timed(store.addMessage(other, 'a note saved while searching', []));
    const [searched, wrote] = await Promise.all([search, write]);
    expect(wrote.ms).toBeLessThan(PROMPT_MS);
    expect(searched.ms).toBeLessThan(PROMPT_MS);
    const found = new Map(shown(searched.value).map((s) => [s.split(':')[0], s.slice(s.indexOf(':') + 1)]));
    expect(found).toEqual(
      new Map([
        ['message', `${'[0] '.repeat(13)}[0]${SNIPPET_ELLIPSIS}`],
        ['attachment_text', `${'[0],'.repeat(13)}[0]${SNIPPET_ELLIPSIS}`],
      ]),
    );
    expect(searched.value.complete).toBe(true);
    expect((await store.get(other))!.messages.map((m) => m.content)).toEqual(['a note saved while searching']);
  }, 120_000);
});

describe('a hit far into its row', () => {
  it('past the first characters read is still marked, and a stale row that long is still checked whole', async () => {
    await store.load();
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    await store.addMessage(id, `${'filler '.repeat(3_000)}the whimbrel landed`, []);
    expect(shown(await store.search('default', 'whimbrel', 20))).toEqual([`message:${SNIPPET_ELLIPSIS}filler filler filler filler filler filler filler filler filler filler filler the [whimbrel] landed`]);
    // The same row as an older Satchel indexed it (unredacted), the key far past the first characters read.
    await withDb((db) => db.run(`UPDATE search_docs SET text = ? WHERE kind = 'message'`, [`${'filler '.repeat(3_000)}the whimbrel ${SECRET} landed`]));
    const found = shown(await store.search('default', 'whimbrel', 20));
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('[whimbrel]');
    expect(found[0]).not.toContain(SECRET.slice(6, -4));
    await withDb(async (db) => expect((await db.get<{ text: string }>(`SELECT text FROM search_docs WHERE kind = 'message'`))!.text).not.toContain(SECRET));
  });
});

describe('a search that runs out of time', () => {
  const interrupted = () => Object.assign(new Error('SQLITE_INTERRUPT: interrupted'), { code: 'SQLITE_INTERRUPT' });

  /** The real reader, with the statements `fails` picks answering as an interrupted one does at the deadline. */
  function readerInterrupting(real: SearchReader, fails: (sql: string) => boolean): SearchReader {
    return {
      run: <T>(work: (run: SearchRun) => Promise<T>, signal?: AbortSignal) =>
        real.run((run) => {
          let expired = false;
          const q: Queries = {
            ...run.q,
            all: <R>(sql: string, params?: never) => {
              if (!fails(sql)) return run.q.all<R>(sql, params);
              expired = true;
              return Promise.reject(interrupted());
            },
          };
          return work({ q, get expired() { return expired; }, get abandoned() { return run.abandoned; } });
        }, signal),
    } as SearchReader;
  }

  it('answers the newest rows found, with their snippets, and says it was stopped; nothing found: says that', async () => {
    await store.load();
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    for (const text of ['the first godwit', 'a godwit, then another godwit', 'the last godwit of the day']) await store.addMessage(id, text, []);
    const real = await SearchReader.open(store.file);
    try {
      await withDb(async (db) => {
        const listing = (sid: string) => store.list().find((l) => l.session_id === sid);
        const ranking = readerInterrupting(real, (sql) => sql.includes('bm25('));
        const found = await searchSessions(db, ranking, listing, 'godwit', { profile: 'default', limit: 2 });
        expect(found.stopped).toBe(SEARCH_STOPPED);
        expect(found.complete).toBe(false);
        expect(found.hits.map((h) => [h.position, h.snippet.map((s) => (s.match ? `[${s.text}]` : s.text)).join('')])).toEqual([
          [2, 'the last [godwit] of the day'],
          [1, 'a [godwit], then another [godwit]'],
        ]);
        const matching = readerInterrupting(real, (sql) => sql.includes('MATCH'));
        expect(await searchSessions(db, matching, listing, 'godwit', { profile: 'default', limit: 2 })).toEqual({ query: 'godwit', hits: [], complete: false, stopped: SEARCH_STOPPED_EMPTY });
      });
    } finally {
      await real.close();
    }
  });
});
