import { describe, expect, it } from 'vitest';
import { formatBytes, formatElapsed, formatProgress, isArchiveName } from './format.js';

describe('format', () => {
  it('formats sizes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(4 * 1024 * 1024)).toBe('4.0 MB');
    expect(formatBytes(-1)).toBe('?');
  });

  it('formats progress in the total’s unit', () => {
    expect(formatProgress(1.2 * 1024 * 1024, 4 * 1024 * 1024)).toBe('1.2 MB / 4.0 MB');
    expect(formatProgress(0, 60 * 1024 * 1024)).toBe('0.0 MB / 60.0 MB');
    expect(formatProgress(10, 300)).toBe('10 B / 300 B');
  });

  it('formats the recording clock', () => {
    expect(formatElapsed(0)).toBe('0:00');
    expect(formatElapsed(65_400)).toBe('1:05');
  });

  it('knows the server’s archive suffixes', () => {
    for (const n of ['a.zip', 'A.TAR.GZ', 'b.tgz', 'c.tar.bz2', 'd.tbz2', 'e.tar.xz', 'f.txz', 'g.tar']) expect(isArchiveName(n)).toBe(true);
    for (const n of ['a.gz', 'b.rar', 'c.7z', 'zip']) expect(isArchiveName(n)).toBe(false);
  });
});
