// The search reader: its own connection, so a long read never holds a write; a deadline that stops the statement
// under way (and only it); a search whose client left stopped or never started; close() never waits on one.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fullCollection } from '../../core/idle-collect.js';
import { Db } from './connection.js';
import { isInterrupted, MAX_KEPT_STATEMENTS, SearchAbandoned, SearchReader } from './search-reader.js';

let dir: string;
let db: Db;
let reader: SearchReader;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-reader-'));
  db = await Db.open(path.join(dir, 'r.db'));
  await db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
  reader = await SearchReader.open(path.join(dir, 'r.db'));
});
afterEach(async () => {
  await reader.close();
  await db.close();
  await fs.rm(dir, { recursive: true, force: true });
});

/** A statement that reads for minutes unless stopped. */
const SLOW = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000000000) SELECT count(*) AS c FROM n';
/** Generous, for a loaded two-core machine: the slow statement alone runs for minutes. */
const PROMPT_MS = 10_000;

const timed = async <T>(work: Promise<T>): Promise<{ ms: number; value: T }> => {
  const started = performance.now();
  const value = await work;
  return { ms: performance.now() - started, value };
};

describe('SearchReader', () => {
  it("holds no search's answer once it is given (issue 37, finding 8: an idle server kept its last search's rows)", async () => {
    let answer: WeakRef<object> | undefined;
    await reader.run(async () => {
      const rows = { rows: Array.from({ length: 1_000 }, (_, i) => ({ head: `row ${i}` })) };
      answer = new WeakRef(rows);
      return rows;
    });
    // A WeakRef's target lives to the end of the task that made it.
    await new Promise((resolve) => setImmediate(resolve));
    fullCollection()!();
    expect(answer!.deref()).toBeUndefined();
  });

  it('stops the statement under way at the deadline, and the search goes on to answer what it has', async () => {
    const { ms, value } = await timed(
      reader.run(async (run) => {
        const slow = await run.q.get(SLOW).then(
          () => 'finished',
          (err: unknown) => (isInterrupted(err) ? 'interrupted' : `failed: ${String(err)}`),
        );
        // Past the deadline, a statement still runs (the fallback of a search: a bounded lookup).
        const after = await run.q.get<{ one: number }>('SELECT 1 AS one');
        return { slow, expired: run.expired, after: after?.one };
      }, undefined, 50),
    );
    expect(value).toEqual({ slow: 'interrupted', expired: true, after: 1 });
    expect(ms).toBeLessThan(PROMPT_MS);
  });

  it('never holds a write: the writer commits while a search reads', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const search = reader.run(async (run) => {
      await run.q.get('SELECT count(*) FROM notes');
      await held;
      return run.q.all<{ text: string }>('SELECT text FROM notes');
    });
    const write = await timed(db.transaction((q) => q.run('INSERT INTO notes (text) VALUES (?)', ['written meanwhile'])));
    expect(write.ms).toBeLessThan(PROMPT_MS);
    release();
    expect(await search).toEqual([{ text: 'written meanwhile' }]);
  });

  it('runs one search at a time: a deadline stops only its own', async () => {
    const first = reader.run((run) => run.q.get(SLOW).catch((err: unknown) => (isInterrupted(err) ? 'interrupted' : err)), undefined, 50);
    const second = reader.run((run) => run.q.get<{ one: number }>('SELECT 1 AS one'));
    expect(await first).toBe('interrupted');
    expect(await second).toEqual({ one: 1 });
  });

  it('stops a search whose client left, and never starts one that waited', async () => {
    const running = new AbortController();
    const waiting = new AbortController();
    const first = reader.run((run) => run.q.get(SLOW), running.signal, 60_000);
    let started = false;
    const second = reader.run(async () => {
      started = true;
    }, waiting.signal);
    waiting.abort();
    setTimeout(() => running.abort(), 50);
    const { ms, value } = await timed(first.then(() => 'answered', (err: unknown) => err));
    expect(value).toBeInstanceOf(SearchAbandoned);
    expect(ms).toBeLessThan(PROMPT_MS);
    await expect(second).rejects.toBeInstanceOf(SearchAbandoned);
    expect(started).toBe(false);
  });

  it('prepares a statement once and keeps it: every later search runs it, with the rows as they are now', async () => {
    const prepare = vi.spyOn(Db.prototype, 'prepare');
    try {
      for (let i = 0; i < 5; i++) {
        await db.transaction((q) => q.run('INSERT INTO notes (text) VALUES (?)', [`note ${i}`]));
        const rows = await reader.run((run) => run.q.all<{ text: string }>('SELECT text FROM notes WHERE text LIKE ? ORDER BY id', ['note %']));
        expect(rows.map((r) => r.text)).toEqual(Array.from({ length: i + 1 }, (_, k) => `note ${k}`));
        expect(await reader.run((run) => run.q.get<{ text: string }>('SELECT text FROM notes WHERE id = ?', [i + 1]))).toEqual({ text: `note ${i}` });
      }
      expect(prepare).toHaveBeenCalledTimes(2);
    } finally {
      prepare.mockRestore();
    }
  });

  it('keeps at most MAX_KEPT_STATEMENTS, holds no read open between searches, and closes with them kept', async () => {
    await db.transaction((q) => q.run('INSERT INTO notes (text) VALUES (?)', ['kept']));
    for (let i = 0; i < MAX_KEPT_STATEMENTS * 2; i++) {
      expect(await reader.run((run) => run.q.get<{ n: number }>(`SELECT count(*) + ${i} AS n FROM notes`))).toEqual({ n: 1 + i });
    }
    // A statement left stepped partway would hold its snapshot, and the WAL could not be emptied.
    await db.transaction((q) => q.run('INSERT INTO notes (text) VALUES (?)', ['after']));
    expect(await db.checkpoint()).toBe(true);
    // A wrong statement is refused and not kept; the next one runs.
    await expect(reader.run((run) => run.q.all('SELECT text FROM nowhere'))).rejects.toThrow(/no such table/);
    expect(await reader.run((run) => run.q.all<{ text: string }>('SELECT text FROM notes ORDER BY id'))).toEqual([{ text: 'kept' }, { text: 'after' }]);
    await reader.close();
    reader = await SearchReader.open(path.join(dir, 'r.db'));
  });

  it('close() stops the search under way at once (stopping the server never waits on one)', async () => {
    const search = reader.run((run) => run.q.get(SLOW), undefined, 600_000).then(() => 'answered', (err: unknown) => err);
    await new Promise((r) => setTimeout(r, 50));
    const { ms } = await timed(reader.close());
    expect(ms).toBeLessThan(PROMPT_MS);
    expect(await search).toBeInstanceOf(SearchAbandoned);
    await expect(reader.run(async () => 1)).rejects.toBeInstanceOf(SearchAbandoned);
    reader = await SearchReader.open(path.join(dir, 'r.db'));
  });
});
