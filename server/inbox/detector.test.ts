// The Inbox watcher's detector (detector.ts) on a real folder: which names become candidates, which are counted
// once and never read, what a baseline takes as seen, and the per-scan limit.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Detector, SKIP_NOT_UTF8 } from './detector.js';
import { watchedFolder, type WatchedForTest } from './testing/watching.js';

let t: WatchedForTest | undefined;
afterEach(async () => {
  await t?.done();
  t = undefined;
});

describe('Detector', () => {
  it('makes new and changed files candidates, passes over hidden, temporary and non-UTF-8 names once each', async () => {
    t = await watchedFolder();
    const detector = new Detector(t.w, { protectedPlaces: {} } as never, () => {});
    await fs.writeFile(path.join(t.dir, 'old.txt'), 'there before');
    await detector.baseline(t.folder);
    expect([...t.folder.known.keys()]).toEqual(['old.txt']);
    expect(t.known.get(t.dir)).toBe(t.folder.known);
    for (const name of ['new.pdf', '.DS_Store', 'movie.mp4.crdownload']) await fs.writeFile(path.join(t.dir, name), 'x');
    await fs.writeFile(Buffer.concat([Buffer.from(`${t.dir}/`), Buffer.from([0x66, 0xff, 0x2e, 0x74])]), 'x');
    await detector.scanNames(t.folder);
    await detector.scanNames(t.folder);
    expect([...t.folder.candidates.keys()]).toEqual(['new.pdf']);
    expect(t.w.counts).toMatchObject({ ignored: 2, bad_name: 1 });
    expect(t.folder.skipped).toEqual([{ name: 'f\ufffd.t', reason: SKIP_NOT_UTF8 }]);
    // A file seen before that changes is a candidate again.
    await fs.appendFile(path.join(t.dir, 'old.txt'), ' and after');
    await detector.scanNames(t.folder);
    expect([...t.folder.candidates.keys()].sort()).toEqual(['new.pdf', 'old.txt']);
  });

  it('looks at the first names only past the per-scan limit and counts the rest', async () => {
    t = await watchedFolder({ maxFilesPerScan: 2 });
    const detector = new Detector(t.w, { protectedPlaces: {} } as never, () => {});
    for (const name of ['a', 'b', 'c', 'd']) await fs.writeFile(path.join(t.dir, name), name);
    await detector.scanNames(t.folder);
    expect(t.folder.candidates.size).toBe(2);
    expect(t.w.counts.over_scan_limit).toBe(2);
  });

  it('a lost folder stops: its candidates and queued files go, its status says why', async () => {
    t = await watchedFolder();
    const dropped: string[] = [];
    const detector = new Detector(t.w, { protectedPlaces: {} } as never, (f) => dropped.push(f.configured));
    detector.touch(t.folder, 'a.txt');
    detector.lose(t.folder, await fs.lstat(t.dir));
    expect([t.folder.candidates.size, t.folder.held, t.folder.status, t.folder.error]).toEqual([0, undefined, 'missing', expect.stringContaining('moved or replaced')]);
    expect(dropped).toEqual([t.dir]);
  });
});
