// Decompressed bytes that never become files: trailing data after the end-of-archive blocks and data carried by
// skipped members. A few hundred compressed bytes can expand to gigabytes of either; node-tar buffers them at
// quadratic cost on the main thread, so both must be bounded (found by the security review: a 875-byte
// .tar.bz2 kept the server busy for more than ten minutes).
import { execFileSync } from 'node:child_process';
import zlib from 'node:zlib';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from './testing/fixtures.js';
import { extractFails, extractOk, MIB } from './testing/harness.js';
import { Header } from 'tar';
import { buildTar } from './testing/tar-builder.js';
import { MAX_UNWRITTEN_TAR_BYTES } from './tar.js';

let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

const small = buildTar([{ name: 'small.txt', content: Buffer.from('hi\n') }]);

describe('tar bytes that are never written', () => {
  it('stops reading at the end-of-archive blocks: 256 MiB of trailing zeros are never decompressed', async () => {
    const gz = zlib.gzipSync(Buffer.concat([small, Buffer.alloc(256 * MIB)]), { level: 9 });
    expect(gz.length).toBeLessThan(MIB);
    const { dest, result } = await extractOk(sb, 'trail.tar.gz', gz);
    expect(result.files).toEqual(['trail.tar/small.txt']);
    expect(fs.readFileSync(path.join(dest, 'small.txt'), 'utf8')).toBe('hi\n');
  }, 60_000);

  it('stops a pbzip2 bomb (streams decoded side by side in workers) at the cap', async () => {
    const tarBytes = buildTar([{ name: 'zeros.bin', content: Buffer.alloc(128 * MIB) }]);
    const bz = execFileSync('pbzip2', ['-c', '-9'], { input: tarBytes, maxBuffer: 1 << 30 });
    expect(bz.length).toBeLessThan(64 * 1024);
    await extractFails(sb, 'bomb.tar.bz2', bz, 'Extraction too large (max 2097152 bytes). Possible zip bomb.', 2 * MIB);
  }, 60_000);

  it('refuses a skipped member carrying more data than any real archive has outside its files', async () => {
    const size = MAX_UNWRITTEN_TAR_BYTES + MIB;
    const padded = Math.ceil(size / 512) * 512;
    // A symlink member that declares (and carries) data: the parser must skip it, nothing is written.
    const header = new Header({ path: 'l', type: 'SymbolicLink', linkpath: 'target', size, mode: 0o777, mtime: new Date(0), uid: 0, gid: 0 });
    header.encode();
    const dirWithData = Buffer.concat([header.block!, Buffer.alloc(padded, 1)]);
    const gz = zlib.gzipSync(Buffer.concat([dirWithData, small]), { level: 9 });
    await extractFails(sb, 'skip.tar.gz', gz, /^Extraction too large \(max \d+ bytes\)\. Possible zip bomb\.$/, 64 * MIB);
  }, 60_000);
});
