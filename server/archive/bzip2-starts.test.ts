import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCAN_CHUNK_BYTES, StreamStarts } from './bzip2-starts.js';

let dir: string;
beforeEach(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-bz2starts-'));
});
afterEach(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

async function allStarts(bytes: Buffer, scanLimit?: number): Promise<Array<number | null>> {
  const file = path.join(dir, 'x.bz2');
  fs.writeFileSync(file, bytes);
  const handle = await fsp.open(file, 'r');
  try {
    const starts = new StreamStarts(handle, bytes.length);
    const out: Array<number | null> = [];
    for (;;) {
      const next = await starts.next(scanLimit);
      out.push(next);
      if (next === null || next >= bytes.length) return out;
    }
  } finally {
    await handle.close();
  }
}

const candidate = (level = '9') => Buffer.concat([Buffer.from(`BZh${level}`), Buffer.from('314159265359', 'hex')]);

describe('bzip2 stream starts', () => {
  it('finds every stream of a concatenation of bzip2 files, then the end', async () => {
    const one = execFileSync('bzip2', ['-c', '-1'], { input: Buffer.from('first stream\n'.repeat(100)) });
    const two = execFileSync('bzip2', ['-c', '-5'], { input: Buffer.from('second stream\n'.repeat(100)) });
    const bytes = Buffer.concat([one, two]);
    expect(await allStarts(bytes)).toEqual([0, one.length, bytes.length]);
  });

  it('finds a candidate cut by the edge of a scan read', async () => {
    for (const at of [SCAN_CHUNK_BYTES - 9, SCAN_CHUNK_BYTES - 5, SCAN_CHUNK_BYTES - 1, SCAN_CHUNK_BYTES]) {
      const bytes = Buffer.concat([candidate(), Buffer.alloc(at - 10), candidate('1'), Buffer.alloc(100)]);
      expect(await allStarts(bytes)).toEqual([0, at, bytes.length]);
    }
  });

  it('needs the level digit and the block magic together', async () => {
    const bytes = Buffer.concat([candidate(), Buffer.from('BZh0'), Buffer.from('314159265359', 'hex'), Buffer.from('BZh9xx'), candidate('5').subarray(4)]);
    expect(await allStarts(bytes)).toEqual([0, bytes.length]);
  });

  it('stops at the scan limit without a candidate', async () => {
    const bytes = Buffer.concat([candidate(), Buffer.alloc(3 * SCAN_CHUNK_BYTES), candidate()]);
    expect(await allStarts(bytes, SCAN_CHUNK_BYTES)).toEqual([0, null]);
  });
});
