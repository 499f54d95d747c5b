// The search reader: its own connection, so a long read never holds a write; a deadline that stops the statement
// under way (and only it); a search whose client left stopped or never started; close() never waits on one.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Db } from './connection.js';
import { isInterrupted, SearchAbandoned, SearchReader } from './search-reader.js';

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
