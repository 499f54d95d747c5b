// The Inbox watcher's settler (settler.ts) on a real folder: a candidate is ready only once it has not changed for
// the settle time and no process holds it open for writing (or has for too long); empty and oversized files are
// counted and never queued.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Detector } from './detector.js';
import { Settler } from './settler.js';
import { watchedFolder, type WatchedForTest } from './testing/watching.js';
import type { Ready } from './watching.js';

let t: WatchedForTest | undefined;
afterEach(async () => {
  await t?.done();
  t = undefined;
});

const SETTLE_MS = 150;

/** One poll, waited for: the settler says nothing when one ends, so wait until it takes another. */
async function pollOnce(settler: Settler): Promise<void> {
  settler.poll();
  await vi.waitFor(() => {
    if ((settler as unknown as { polling: boolean }).polling) throw new Error('still polling');
  });
}

describe('Settler', () => {
  it('queues a file once it has stopped changing for the settle time, in order; passes over empty and oversized ones', async () => {
    t = await watchedFolder({ settleMs: SETTLE_MS, maxFileBytes: 20 });
    const ready: Ready[] = [];
    const detector = new Detector(t.w, { protectedPlaces: {} } as never, () => {});
    const settler = new Settler(t.w, detector, (files) => ready.push(...files));
    for (const [name, body] of [['b.txt', 'second'], ['empty', ''], ['big', 'x'.repeat(21)]] as const) await fs.writeFile(path.join(t.dir, name), body);
    await fs.writeFile(path.join(t.dir, 'a.txt'), 'first');
    detector.touch(t.folder, 'b.txt');
    detector.touch(t.folder, 'empty');
    detector.touch(t.folder, 'big');
    detector.touch(t.folder, 'a.txt');
    await pollOnce(settler);
    expect(ready).toEqual([]);
    await fs.appendFile(path.join(t.dir, 'a.txt'), ' changed');
    await new Promise((r) => setTimeout(r, SETTLE_MS + 50));
    await pollOnce(settler);
    // a.txt changed since it was first looked at: it settles from that look on.
    expect(ready.map((r) => r.name)).toEqual(['b.txt']);
    expect(t.w.counts).toMatchObject({ empty: 1, too_large: 1 });
    await new Promise((r) => setTimeout(r, SETTLE_MS + 50));
    await pollOnce(settler);
    expect(ready.map((r) => r.name)).toEqual(['b.txt', 'a.txt']);
    expect(t.folder.candidates.size).toBe(0);
    expect([...t.folder.known.keys()].sort()).toEqual(['a.txt', 'b.txt', 'big', 'empty']);
  });

  it('a file still open for writing waits, up to the writer wait, then is read anyway', async () => {
    t = await watchedFolder({ settleMs: 0, maxWriterWaitMs: 300, openWriters: async (paths) => new Set(paths) });
    const ready: Ready[] = [];
    const detector = new Detector(t.w, { protectedPlaces: {} } as never, () => {});
    const settler = new Settler(t.w, detector, (files) => ready.push(...files));
    await fs.writeFile(path.join(t.dir, 'held.log'), 'being written');
    detector.touch(t.folder, 'held.log');
    await pollOnce(settler);
    await pollOnce(settler);
    expect(ready).toEqual([]);
    expect(t.folder.candidates.get('held.log')?.heldSince).toBeTypeOf('number');
    await new Promise((r) => setTimeout(r, 350));
    await pollOnce(settler);
    expect(ready.map((r) => r.name)).toEqual(['held.log']);
  });

  // A writer paused past the settle time (a loaded machine) and went on: the file was queued half-written, its last
  // write's event made it a candidate again, then another file was finished, then the importer found the first one
  // changed. It still comes first: it became complete first. (Seen as a 1,000-file order failure under full load.)
  it('a file found changed when read keeps its place by its last write, ahead of files finished after it', async () => {
    t = await watchedFolder({ settleMs: SETTLE_MS });
    const ready: Ready[] = [];
    const detector = new Detector(t.w, { protectedPlaces: {} } as never, () => {});
    const settler = new Settler(t.w, detector, (files) => ready.push(...files));
    const settled = () => new Promise((r) => setTimeout(r, SETTLE_MS + 50));
    await fs.writeFile(path.join(t.dir, 'slow.txt'), 'first half');
    detector.touch(t.folder, 'slow.txt');
    await pollOnce(settler);
    await settled();
    await pollOnce(settler);
    expect(ready.map((r) => r.name)).toEqual(['slow.txt']);
    // The writer goes on: its last write, then another file finished after it.
    await fs.appendFile(path.join(t.dir, 'slow.txt'), ', second half');
    detector.touch(t.folder, 'slow.txt');
    await fs.writeFile(path.join(t.dir, 'later.txt'), 'finished after');
    detector.touch(t.folder, 'later.txt');
    // Only now does the importer's read of the queued copy find it changed.
    t.folder.known.delete('slow.txt');
    detector.changedWhileRead(t.folder, 'slow.txt');
    ready.length = 0;
    await pollOnce(settler);
    await settled();
    await pollOnce(settler);
    expect(ready.map((r) => r.name)).toEqual(['slow.txt', 'later.txt']);
    // With no event for the change yet, it is a candidate from now.
    t.folder.candidates.clear();
    detector.changedWhileRead(t.folder, 'gone-quiet.txt');
    expect(t.folder.candidates.has('gone-quiet.txt')).toBe(true);
  });
});
