import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBzip2File, type ScannerFactory } from './bunzip2-parallel.js';
import { StreamStarts } from './bzip2-starts.js';
import { noise } from './testing/fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-pbz2-'));
});
afterEach(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

/** Text and incompressible data, as in a source tarball. */
function content(bytes: number, seed: number): Buffer {
  const parts: Buffer[] = [];
  for (let size = 0, i = 0; size < bytes; i++) {
    const part = i % 3 === 2 ? noise(50_000, seed + i) : Buffer.from(`line ${i} of ${seed}: satchel extract stream\n`.repeat(1500));
    parts.push(part);
    size += part.length;
  }
  return Buffer.concat(parts).subarray(0, bytes);
}

function write(name: string, bytes: Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

const tool = (cmd: string, args: string[], input: Buffer) => execFileSync(cmd, args, { input, maxBuffer: 1 << 30 });

/** Everything the stream gives, and its error if it fails. */
async function drain(stream: Readable): Promise<{ data: Buffer; error?: Error }> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return { data: Buffer.concat(chunks) };
  } catch (error) {
    return { data: Buffer.concat(chunks), error: error as Error };
  }
}

/** The real scanner plus a false candidate at `offset` (as if those ten bytes had occurred by chance). */
const withFalseStart =
  (offset: number): ScannerFactory =>
  (handle, size) => {
    const real = new StreamStarts(handle, size);
    let pending: number | null = null;
    let injected = false;
    return {
      get size() {
        return real.size;
      },
      async next(limit?: number) {
        const next = pending ?? (await real.next(limit));
        pending = null;
        if (!injected && next !== null && next > offset) {
          injected = true;
          pending = next;
          return offset;
        }
        return next;
      },
    };
  };

describe('stream-parallel bzip2', () => {
  it('decodes a pbzip2 file to the bytes pbzip2 compressed, with 2, 3 and 4 workers', async () => {
    const original = content(4_000_000, 1);
    const compressed = tool('pbzip2', ['-c', '-9'], original);
    const file = write('p.bz2', compressed);
    const streams = compressed.toString('latin1').match(/BZh9\x31\x41\x59\x26\x53\x59/g)?.length ?? 0;
    expect(streams).toBeGreaterThanOrEqual(4);
    for (const workers of [2, 3, 4]) {
      const { data, error } = await drain(openBzip2File(file, workers));
      expect(error).toBeUndefined();
      expect(data.equals(original), `${workers} workers`).toBe(true);
    }
  });

  it('decodes concatenated bzip2 files of several blocks each, with empty streams between them', async () => {
    const parts = [content(250_000, 2), Buffer.alloc(0), content(420_000, 3), content(10, 4), Buffer.alloc(0)];
    const compressed = Buffer.concat(parts.map((p) => tool('bzip2', ['-c', '-1'], p)));
    const { data, error } = await drain(openBzip2File(write('cat.bz2', compressed), 2));
    expect(error).toBeUndefined();
    expect(data.equals(Buffer.concat(parts))).toBe(true);
  });

  it('a false stream start inside a stream is not a split: the same bytes come out', async () => {
    const first = content(450_000, 5);
    const second = content(300_000, 6);
    const one = tool('bzip2', ['-c', '-1'], first);
    const compressed = Buffer.concat([one, tool('bzip2', ['-c', '-1'], second)]);
    const file = write('false.bz2', compressed);
    // Late in the first stream, after blocks that decode (and are passed on) before the segment fails.
    for (const offset of [Math.floor(one.length * 0.9), 100]) {
      const { data, error } = await drain(openBzip2File(file, 2, withFalseStart(offset)));
      expect(error).toBeUndefined();
      expect(data.equals(Buffer.concat([first, second])), `false start at ${offset}`).toBe(true);
    }
  });

  it('a corrupt later stream fails as the sequential decoder fails, after the bytes before it', async () => {
    const parts = [content(300_000, 7), content(300_000, 8), content(300_000, 9)];
    const streams = parts.map((p) => tool('bzip2', ['-c', '-1'], p));
    const corrupt = Buffer.from(streams[1]!);
    corrupt[corrupt.length - 2000] = corrupt[corrupt.length - 2000]! ^ 0xff;
    const file = write('bad.bz2', Buffer.concat([streams[0]!, corrupt, streams[2]!]));
    const parallel = await drain(openBzip2File(file, 2));
    const sequential = await drain(openBzip2File(file, 1));
    expect(parallel.error?.message).toMatch(/^bzip2: /);
    expect(parallel.error?.message).toBe(sequential.error?.message);
    expect(parallel.data.equals(sequential.data)).toBe(true);
    // The first stream whole (the corrupt block's own bytes go out before its CRC fails, in both decoders).
    expect(parallel.data.subarray(0, 300_000).equals(parts[0]!)).toBe(true);
  });

  it('refuses trailing garbage after the last stream, as the sequential decoder does', async () => {
    const parts = [content(200_000, 10), content(200_000, 11)];
    const file = write('junk.bz2', Buffer.concat([...parts.map((p) => tool('bzip2', ['-c', '-9'], p)), Buffer.from('junk after the end')]));
    const parallel = await drain(openBzip2File(file, 2));
    const sequential = await drain(openBzip2File(file, 1));
    expect(sequential.error).toBeInstanceOf(Error);
    expect(parallel.error?.message).toBe(sequential.error?.message);
    expect(parallel.data.equals(Buffer.concat(parts))).toBe(true);
  });

  it('destroying the stream mid-way stops its workers (a many-stream bomb is not decoded to the end)', async () => {
    // 256 MiB of zeros in pbzip2 streams of 900 kB each: a few kB on disk.
    const zeros = tool('pbzip2', ['-c', '-9'], Buffer.alloc(256 * 1024 * 1024));
    expect(zeros.length).toBeLessThan(64 * 1024);
    const stream = openBzip2File(write('zeros.bz2', zeros), 2);
    let seen = 0;
    const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    for await (const chunk of stream) {
      seen += (chunk as Buffer).length;
      if (seen >= 4 * 1024 * 1024) break;
    }
    await closed;
    expect(seen).toBeLessThan(16 * 1024 * 1024);
  });
});
