import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unpackedPath } from './unpacked-path.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-unpacked-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('unpackedPath', () => {
  it('maps a file inside app.asar to its unpacked copy when that exists', () => {
    const unpacked = path.join(tmp, 'resources', 'app.asar.unpacked', 'dist', 'server', 'office', 'convert-worker.js');
    fs.mkdirSync(path.dirname(unpacked), { recursive: true });
    fs.writeFileSync(unpacked, '');
    const inAsar = path.join(tmp, 'resources', 'app.asar', 'dist', 'server', 'office', 'convert-worker.js');
    expect(unpackedPath(inAsar)).toBe(unpacked);
  });

  it('keeps the path when the file was not unpacked', () => {
    const inAsar = path.join(tmp, 'resources', 'app.asar', 'dist', 'server', 'index.js');
    expect(unpackedPath(inAsar)).toBe(inAsar);
  });

  it('keeps a path outside any asar, and a folder merely named like one', () => {
    expect(unpackedPath('/home/me/satchel/dist/server/office/convert-worker.js', () => true)).toBe(
      '/home/me/satchel/dist/server/office/convert-worker.js',
    );
    expect(unpackedPath('/opt/my.app.asar.d/x.js', () => true)).toBe('/opt/my.app.asar.d/x.js');
  });

  it('handles Windows separators', () => {
    const seen: string[] = [];
    const out = unpackedPath('C:\\Program Files\\Satchel\\resources\\app.asar\\node_modules\\a\\b.js', (p) => {
      seen.push(p);
      return true;
    });
    expect(out).toBe('C:\\Program Files\\Satchel\\resources\\app.asar.unpacked\\node_modules\\a\\b.js');
    expect(seen).toEqual([out]);
  });
});
