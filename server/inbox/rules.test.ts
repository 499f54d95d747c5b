import path from 'node:path';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { dirList } from '../settings/parsers.js';
import { ignoredName, RateWindow, sameSignature } from './rules.js';

describe('Inbox rules', () => {
  it('ignores files still being written and files that belong to applications', () => {
    const ignored = ['report.pdf.crdownload', 'movie.mkv.part', 'x.partial', 'Photo.jpg.download', 'a.tmp', 'b.TMP', 'c.temp', '~$report.docx', '.~lock.report.docx#', '#draft.txt#', 'notes.txt~', 'x.opdownload', 'file.aria2', 'Thumbs.db', 'desktop.ini'];
    for (const name of ignored) expect(ignoredName(name), name).not.toBeNull();
    expect(ignoredName('.DS_Store')).toBe('hidden');
    expect(ignoredName('.hidden.pdf')).toBe('hidden');
    expect(ignoredName('~$x.docx')).toBe('temporary');
    expect(ignoredName('a.crdownload')).toBe('temporary');
  });

  it('takes ordinary documents', () => {
    for (const name of ['report.pdf', 'scan 001.jpg', 'notes.txt', 'archive.tar.gz', 'party.part2.rar', 'tmp-notes.md', 'a~b.txt', 'budget.xlsx']) {
      expect(ignoredName(name), name).toBeNull();
    }
  });

  it('counts a signature as changed when any of size, times or inode differ', () => {
    const a = { size: 1, mtimeMs: 2, ctimeMs: 3, ino: 4 };
    expect(sameSignature(a, { ...a })).toBe(true);
    for (const key of ['size', 'mtimeMs', 'ctimeMs', 'ino'] as const) expect(sameSignature(a, { ...a, [key]: 9 })).toBe(false);
    expect(sameSignature(undefined, a)).toBe(false);
  });

  it('allows so many arrivals a minute, then more as the minute slides', () => {
    const w = new RateWindow(3);
    expect([w.take(0), w.take(10), w.take(20), w.take(30)]).toEqual([true, true, true, false]);
    expect(w.take(59_999)).toBe(false);
    expect(w.take(60_000)).toBe(true);
  });

  it('reads SATCHEL_INBOX_FOLDERS as folders separated by the platform delimiter', () => {
    const ctx = { key: 'SATCHEL_INBOX_FOLDERS', source: 'env' as const, warn: () => {} };
    const raw = ['/a/Downloads', ' ~/Scans ', '', '/a/Downloads'].join(path.delimiter);
    expect(dirList(raw, ctx)).toEqual(['/a/Downloads', path.join(os.homedir(), 'Scans')]);
    expect(dirList(` ${path.delimiter} `, ctx)).toBeUndefined();
  });
});
