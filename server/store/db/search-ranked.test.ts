// rankNewestWithHeads (one walk of the index: the newest matching rows, their ranking and each returned row's head)
// answers exactly what the statements it replaced did one by one: the newest MAX_RANKED_ROWS + 1 matching ids, the
// ranking of the rows from the last of them on, then rowHead's read of each row returned. Compared over a varied
// store: titles, both roles, attachments, two profiles, a deleted conversation, rows tied in bm25, prefixes, words
// in more rows than are ranked, a scope of one session or some kinds, limits from 1 to 51.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../sessions.js';
import { Db, type Queries } from './connection.js';
import { ftsQuery } from './search-query.js';
import { MAX_RANKED_ROWS, rankNewestWithHeads, type RankedHead, type SearchScope } from './search.js';

/** The statements matchingIds, rankRows and rowHead ran before issue 37 (finding 7), verbatim but for the text
 *  read from search_texts (schema 8 keeps a message's text in its row): the reference. */
async function before(q: Queries, match: string, scope: SearchScope, chars: number): Promise<{ rows: RankedHead[]; capped: boolean }> {
  const newest = await q.all<{ rowid: number }>(`SELECT rowid FROM search WHERE search MATCH ? ORDER BY rowid DESC LIMIT ${MAX_RANKED_ROWS + 1}`, [match]);
  const capped = newest.length > MAX_RANKED_ROWS;
  const from = capped ? newest[MAX_RANKED_ROWS - 1]!.rowid : 0;
  const PROFILE = `CASE WHEN json_type(s.header, '$.profile') = 'text' AND json_extract(s.header, '$.profile') <> ''
  THEN json_extract(s.header, '$.profile') ELSE 'default' END`;
  const session = scope.sessionId === undefined ? '' : 'AND d.session_id = ?';
  const kinds = scope.kinds === undefined ? '' : `AND d.kind IN (${scope.kinds.map(() => '?').join(', ')})`;
  const ranked = await q.all<{ id: number; session_id: string; kind: RankedHead['kind']; position: number }>(
    `SELECT d.id, d.session_id, d.kind, d.position
     FROM search
     JOIN search_docs d ON d.id = search.rowid
     JOIN sessions s ON s.id = d.session_id
     WHERE search MATCH ? AND search.rowid >= ? AND json_extract(s.header, '$.deleted_at') IS NULL AND ${PROFILE} = ? ${session} ${kinds}
     ORDER BY bm25(search) * CASE d.kind WHEN 'title' THEN 2 ELSE 1 END, d.id
     LIMIT ?`,
    [match, from, scope.profile, ...(scope.sessionId === undefined ? [] : [scope.sessionId]), ...(scope.kinds ?? []), scope.limit],
  );
  const out: RankedHead[] = [];
  for (const row of ranked) {
    const head = await q.get<{ head: unknown; cut: unknown; attachment: unknown; shown: unknown; role: unknown }>(
      `SELECT substr(d.text, 1, ?) AS head, substr(d.text, ?, 1) <> '' AS cut,
       CASE WHEN d.kind IN ('attachment', 'attachment_text') THEN json_extract(a.record, '$.filename') END AS attachment,
       CASE WHEN d.kind IN ('attachment', 'attachment_text') THEN json_extract(a.record, '$.display_name') END AS shown,
       CASE WHEN d.kind = 'message' THEN json_extract(m.row, '$.role') END AS role
     FROM search_texts d
     LEFT JOIN messages m ON m.session_id = d.session_id AND m.position = d.position AND d.kind = 'message'
     LEFT JOIN attachments a ON a.session_id = d.session_id AND a.position = d.position AND d.kind IN ('attachment', 'attachment_text')
     WHERE d.id = ?`,
      [chars, chars + 1, row.id],
    );
    const first =
      head && typeof head.head === 'string'
        ? { head: head.head, cut: head.cut === 1, attachment: typeof head.attachment === 'string' ? head.attachment : null, shown: typeof head.shown === 'string' && head.shown !== '' ? head.shown : null, role: typeof head.role === 'string' ? head.role : null }
        : undefined;
    out.push({ ...row, first });
  }
  return { rows: out, capped };
}

/** Few words, so that rows share them, tie in bm25 and prefixes match many. */
const WORDS = ['heron', 'herald', 'teal', 'stream', 'buffer', 'promise', 'resolve', 'install', 'options', 'the', 'of', 'zip'];
let seed = 37;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
const sentence = (n: number) => Array.from({ length: n }, pick).join(' ');

let dir: string;
let store: SessionStore;
const ids: string[] = [];
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-search-ranked-'));
  store = new SessionStore(dir);
  await store.load();
  for (let c = 0; c < 30; c++) {
    const profile = c % 4 === 3 ? 'work' : 'default';
    const { session_id: id } = await store.create({ workspace: '/w', profile });
    ids.push(id);
    await store.rename(id, c % 3 === 0 ? sentence(3) : `notes ${c}`);
    await store.update(id, (s) => {
      for (let i = 0; i < 40; i++) {
        // Every fifth row the same text as the one before: equal bm25, ordered by id.
        const content = i % 5 === 4 ? String(s.messages.at(-1)!.content) : i === 7 ? `${sentence(5)} ${'long '.repeat(3_000)}${pick()}` : sentence(2 + Math.floor(rand() * 30));
        s.messages.push({ role: i % 2 === 0 ? 'user' : 'assistant', content, timestamp: i });
      }
      for (let a = 0; a < 2; a++) s.attachments.push({ filename: `${pick()}-${a}.txt`, path: path.join(dir, 'attachments', id, `${a}.txt`), size: 1, mime: 'text/plain', is_image: false });
    });
  }
  await store.markDeleted(ids[5]!);
});
afterAll(async () => {
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('rankNewestWithHeads', () => {
  it('answers the same rows, in the same order, with the same heads and cap as the ids, the ranking and each row read one by one', async () => {
    const db = await Db.openReadOnly(store.file);
    try {
      const scopes: Array<Omit<SearchScope, 'limit'>> = [
        { profile: 'default' },
        { profile: 'work' },
        { profile: 'default', sessionId: ids[0]! },
        { profile: 'default', kinds: ['title', 'attachment'] },
        { profile: 'default', kinds: ['message'] },
      ];
      const queries = ['heron', 'her', 'the', 'stream buffer', 'promise res', 't', 'of the', 'zip', 'long', 'install options the', 'nothing'];
      let compared = 0;
      const kinds = new Set<string>();
      let cappedSeen = 0;
      for (const words of queries) {
        for (const scope of scopes) {
          for (const limit of [1, 5, 21, 51]) {
            const match = ftsQuery(words)!;
            const want = await before(db, match, { ...scope, limit }, 64);
            const got = await rankNewestWithHeads(db, match, { ...scope, limit }, 64);
            expect(got, `${words} ${JSON.stringify(scope)} limit ${limit}`).toEqual(want);
            compared += want.rows.length;
            if (want.capped) cappedSeen++;
            for (const row of want.rows) kinds.add(`${row.kind}:${row.first?.role ?? ''}:${row.first?.cut}`);
          }
        }
      }
      // The comparison met every kind of row: titles, both roles, attachments, rows cut and whole.
      expect([...kinds].sort()).toEqual(expect.arrayContaining(['attachment::false', 'message:assistant:false', 'message:user:false', 'message:user:true', 'title::false']));
      expect(compared).toBeGreaterThan(2_000);
      // Some words matched more rows than are ranked: the newest MAX_RANKED_ROWS, the same on both sides.
      expect(cappedSeen).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });
});
