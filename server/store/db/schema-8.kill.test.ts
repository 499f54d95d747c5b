// Schema 8's migration and the compaction after it, killed (SIGKILL, a real child process) at random moments of a
// start over a schema 7 database: the next start finishes them, and every row, every index text and the FTS5
// index come through as they were. Each round starts from the same schema 7 file.
import { spawn } from 'node:child_process';
import { createHash, randomInt } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../../testing/compile.js';
import { SESSION_DB_FILE } from '../sessions.js';
import { DB_PAGE_SIZE, Db, type Queries } from './connection.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';
import { indexText } from './search-query.js';
import { openStore } from '../../testing/fresh-store.js';

const ROUNDS = 12;
const SESSIONS = 40;
/** Messages in all: enough that the migration's copy takes a good part of a start. */
const MESSAGES = 8_000;
const CHILD_TIMEOUT_MS = 60_000;
const SECRET = 'ghp_Mk4Zt8Qw2Rx6Lp1Nv5Bc9Hd3Jf7Gs0Ya2Ue4';

let work: string;
let template: string;
let child: string;
let startMs: number;
let before: { rows: string; docs: string };

const digest = (rows: unknown[]) => createHash('sha256').update(JSON.stringify(rows)).digest('hex');

async function contents(q: Queries, docs: 'search_docs' | 'search_texts'): Promise<{ rows: string; docs: string }> {
  return {
    rows: digest(await q.all('SELECT session_id, position, row FROM messages ORDER BY session_id, position')),
    docs: digest(await q.all(`SELECT id, session_id, kind, position, text FROM ${docs} ORDER BY id`)),
  };
}

/** Start the child on `stateDir` (it opens the store: backup, migration, compaction), killed `afterMs` after `ready`. */
function run(stateDir: string, afterMs?: number): Promise<{ killed: boolean; inMigration: boolean; ms?: number }> {
  const proc = spawn(process.execPath, [child, stateDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  let timer: NodeJS.Timeout | undefined;
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (afterMs !== undefined && timer === undefined && out.includes('ready\n')) timer = setTimeout(() => proc.kill('SIGKILL'), afterMs);
  });
  const limit = setTimeout(() => proc.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  return new Promise((resolve) =>
    proc.on('exit', (_code, signal) => {
      clearTimeout(limit);
      clearTimeout(timer);
      const done = /done (\d+)/.exec(out);
      const killed = signal === 'SIGKILL' && !done;
      // The log says when the migration begins and when the compaction after it ends.
      resolve({ killed, inMigration: killed && err.includes('upgrading the conversation database') && !err.includes('compacted the conversation database'), ms: done ? Number(done[1]) : undefined });
    }),
  );
}

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-schema8-kill-'));
  template = path.join(work, 'template');
  await fs.mkdir(template, { mode: 0o700 });
  const db = await Db.open(path.join(template, SESSION_DB_FILE));
  // Schema 7 by number: a migration appended after 8 (issue 39's 9) must not make this a schema 8 database.
  await migrateSchema(db, 7);
  await db.transaction(async (q) => {
    for (let s = 0; s < SESSIONS; s++) {
      const id = s.toString(16).padStart(12, '0');
      const header = JSON.stringify({ session_id: id, title: `Conversation ${s}`, workspace: '/w', profile: 'default', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });
      const count = MESSAGES / SESSIONS;
      await q.run('INSERT INTO sessions (id, updated_at, message_count, attachment_count, header) VALUES (?, ?, ?, 0, ?)', [id, '2026-01-01T00:00:00.000Z', count, header]);
      await q.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'title', 0, ?)`, [id, `Conversation ${s}`]);
      for (let p = 0; p < count; p++) {
        const content = p % 50 === 7 ? `the key ${SECRET} row ${p}` : `row ${p} of ${s}: ${'the heron waded through the teal stream '.repeat(1 + (p % 40))}`;
        await q.run('INSERT INTO messages (session_id, position, row) VALUES (?, ?, ?)', [id, p, JSON.stringify({ role: p % 2 ? 'assistant' : 'user', content, timestamp: p })]);
        await q.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'message', ?, ?)`, [id, p, indexText(content)]);
      }
    }
  });
  before = await contents(db, 'search_docs');
  await db.close();
  child = await bundleChild('server/store/db/import-child.ts', 'schema8-child-');
  const whole = path.join(work, 'whole');
  await fs.cp(template, whole, { recursive: true });
  const first = await run(whole);
  expect(first.ms).toBeGreaterThan(0);
  startMs = first.ms!;
}, 120_000);

afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
  if (child) await fs.rm(path.dirname(child), { recursive: true, force: true });
});

describe('schema 8, killed at random moments of the start that migrates', () => {
  it(`loses nothing over ${ROUNDS} kills (SIGKILL): the next start finishes the migration and the compaction`, async () => {
    let killedMidway = 0;
    let killedInMigration = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const stateDir = path.join(work, `round-${round}`);
      await fs.cp(template, stateDir, { recursive: true });
      const killed = await run(stateDir, randomInt(0, Math.ceil(startMs * 1.1) + 1));
      if (killed.killed) killedMidway++;
      if (killed.inMigration) killedInMigration++;
      const store = await openStore(stateDir);
      await store.close();
      const db = await Db.open(path.join(stateDir, SESSION_DB_FILE));
      try {
        expect((await db.get<{ version: number }>('SELECT version FROM schema_version'))!.version).toBe(SCHEMA_VERSION);
        expect(await contents(db, 'search_texts')).toEqual(before);
        expect((await db.get<{ page_size: number }>('PRAGMA page_size'))!.page_size).toBe(DB_PAGE_SIZE);
        expect((await db.get<{ n: number }>(`SELECT count(*) AS n FROM search_docs WHERE text IS NULL`))!.n).toBe(MESSAGES - MESSAGES / 50);
        await db.run(`INSERT INTO search (search, rank) VALUES ('integrity-check', 1)`);
      } finally {
        await db.close();
      }
      await fs.rm(stateDir, { recursive: true, force: true });
    }
    // Most kills land inside the start (its backup, the migration, the compaction): the moments are drawn over it.
    expect(killedMidway).toBeGreaterThan(ROUNDS / 3);
    expect(killedInMigration).toBeGreaterThan(0);
  }, 600_000);
});
