import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValueError } from '../core/errors.js';
import { setLogSink } from '../core/log.js';
import { multipartBody, startTestServer } from '../testing/harness.js';
import { allocateExtractionDir, extractArchive } from './index.js';
import { listTree, makeSandbox, noise, writeArchive, yazlZip, type Sandbox } from './testing/fixtures.js';
import { extractFails, extractOk, MIB } from './testing/harness.js';
import { buildZip } from './testing/zip-builder.js';
import { ZipChecksumError } from './zip.js';

let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

describe('benign zip', () => {
  it('extracts nested, empty, stored and deflated files byte-exact, relative to base', async () => {
    const big = noise(300_000, 7);
    const text = Buffer.from('hello\n'.repeat(20_000));
    const bytes = await yazlZip({
      'docs/': Buffer.alloc(0),
      'docs/readme.txt': text,
      'docs/deep/er/big.bin': big,
      'empty.txt': Buffer.alloc(0),
      'héllo wörld.md': Buffer.from('unicode name'),
    });
    const { dest, result } = await extractOk(sb, 'pack.zip', bytes);
    expect(dest).toBe(path.join(sb.base, 'pack'));
    expect(result.extracted).toBe(4);
    expect([...result.files].sort()).toEqual(
      ['pack/docs/deep/er/big.bin', 'pack/docs/readme.txt', 'pack/empty.txt', 'pack/héllo wörld.md'].sort(),
    );
    expect(fs.readFileSync(path.join(dest, 'docs/readme.txt')).equals(text)).toBe(true);
    expect(fs.readFileSync(path.join(dest, 'docs/deep/er/big.bin')).equals(big)).toBe(true);
    expect(fs.readFileSync(path.join(dest, 'empty.txt')).length).toBe(0);
    expect(fs.readFileSync(path.join(dest, 'héllo wörld.md'), 'utf8')).toBe('unicode name');
    expect(await listTree(dest)).toEqual([
      'docs/',
      'docs/deep/',
      'docs/deep/er/',
      'docs/deep/er/big.bin',
      'docs/readme.txt',
      'empty.txt',
      'héllo wörld.md',
    ]);
  });

  it('extracts stored (uncompressed) members', async () => {
    const data = noise(70_000, 3);
    const { dest } = await extractOk(sb, 'Stored.ZIP', await yazlZip({ 'a.bin': data }, { compress: false }));
    expect(fs.readFileSync(path.join(dest, 'a.bin')).equals(data)).toBe(true);
  });

  it('extracts `a/../b` inside the destination as `b`', async () => {
    const { dest, result } = await extractOk(sb, 'dots.zip', buildZip([{ name: 'a/../b.txt', content: Buffer.from('B') }]));
    expect(result.files).toEqual(['dots/b.txt']);
    expect(fs.readFileSync(path.join(dest, 'b.txt'), 'utf8')).toBe('B');
  });

  it('an archive of only directories extracts nothing and keeps the (empty) destination', async () => {
    const { dest, result } = await extractOk(sb, 'dirs.zip', await yazlZip({ 'a/': Buffer.alloc(0), 'a/b/': Buffer.alloc(0) }));
    expect(result).toEqual({
      extracted: 0,
      files: [],
      skipped: [
        { name: 'a/', reason: 'directory-only' },
        { name: 'a/b/', reason: 'directory-only' },
      ],
    });
    expect(await listTree(dest)).toEqual([]);
  });

  it('keeps the first of two members with the same name and never overwrites', async () => {
    const bytes = buildZip([
      { name: 'same.txt', content: Buffer.from('first') },
      { name: 'same.txt', content: Buffer.from('second') },
      { name: 'dir/x.txt', content: Buffer.from('x') },
      { name: 'dir', content: Buffer.from('file where a directory is') },
      { name: 'plain', content: Buffer.from('p') },
      { name: 'plain/child.txt', content: Buffer.from('under a file') },
    ]);
    const { dest, result } = await extractOk(sb, 'dup.zip', bytes);
    expect(result.files).toEqual(['dup/same.txt', 'dup/dir/x.txt', 'dup/plain']);
    expect(fs.readFileSync(path.join(dest, 'same.txt'), 'utf8')).toBe('first');
    expect(fs.lstatSync(path.join(dest, 'dir')).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(dest, 'plain'), 'utf8')).toBe('p');
  });
});

describe('many small members (files written several at a time)', () => {
  it('keeps archive order, the first of duplicates and every byte', async () => {
    const entries: Array<{ name: string; content: Buffer }> = [];
    for (let i = 0; i < 60; i++) entries.push({ name: `d${i % 7}/f${i}.txt`, content: Buffer.from(`file ${i}\n`.repeat(i * 50)) });
    // Late duplicates and conflicts, while earlier files may still be being written.
    entries.push({ name: 'd3/f3.txt', content: Buffer.from('second copy') });
    entries.push({ name: 'd1/f1.txt/under', content: Buffer.from('needs a file to be a folder') });
    entries.push({ name: 'late.bin', content: noise(300_000, 4) });
    const { dest, result } = await extractOk(sb, 'many.zip', buildZip(entries));
    const written = entries.filter((e, i) => i < 60 || e.name === 'late.bin');
    expect(result.files).toEqual(written.map((e) => `many/${e.name}`));
    for (const e of written) expect(fs.readFileSync(path.join(dest, e.name)).equals(e.content), e.name).toBe(true);
    expect(result.skipped).toEqual([
      { name: 'd3/f3.txt', reason: 'duplicate' },
      { name: 'd1/f1.txt/under', reason: 'path-conflict' },
    ]);
  });

  it('a bad CRC-32 in a late member fails the extraction and leaves nothing, also of files still being written', async () => {
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 40; i++) files[`d${i % 5}/f${i}.bin`] = Buffer.from(`member ${String(i).padStart(3, '0')} `.repeat(2000));
    const bytes = await yazlZip(files, { compress: false });
    const at = bytes.indexOf('member 035 ');
    bytes[at] = bytes[at]! ^ 0x20;
    const error = await extractFails(sb, 'late-crc.zip', bytes, 'other');
    expect(error.message).toBe('Zip member failed its CRC-32 check: d0/f35.bin');
  });
});

describe('zip-slip', () => {
  const cases: Array<[string, string]> = [
    ['../evil', '../evil'],
    ['nested/../../evil', 'nested/../../evil'],
    ['drive', 'C:\\x'],
    ['drive-slash', 'C:/x'],
    ['backslash parent', '..\\x'],
    ['backslash nested parent', 'a\\..\\..\\x'],
  ];
  for (const [label, name] of cases) {
    it(`blocks ${label}`, async () => {
      const bytes = buildZip([{ name: 'ok.txt', content: Buffer.from('ok') }, { name, content: Buffer.from('evil') }]);
      await extractFails(sb, 'slip.zip', bytes, `Zip-slip blocked: ${name}`);
    });
  }

  it('blocks an absolute path (pointing at a real directory outside)', async () => {
    const name = path.join(sb.outside, 'x');
    await extractFails(sb, 'abs.zip', buildZip([{ name, content: Buffer.from('evil') }]), `Zip-slip blocked: ${name}`);
  });

  it('blocks a NUL byte and does not echo it', async () => {
    await extractFails(sb, 'nul.zip', buildZip([{ name: 'a\0b', content: Buffer.from('x') }]), 'Zip-slip blocked: a?b');
  });

  it('blocks a hostile name even on a member that would be skipped (a directory)', async () => {
    await extractFails(sb, 'dir.zip', buildZip([{ name: '../up/', unixMode: 0o040755 }]), 'Zip-slip blocked: ../up/');
  });
});

describe('non-regular zip members', () => {
  it('never writes a symlink member, not even as a file holding the target', async () => {
    const bytes = buildZip([
      { name: 'link', content: Buffer.from(sb.outside), unixMode: 0o120777 },
      { name: 'link/evil.txt', content: Buffer.from('through the link?') },
      { name: 'fifo', content: Buffer.alloc(0), unixMode: 0o010644 },
      { name: 'real.txt', content: Buffer.from('real') },
    ]);
    const { dest, result } = await extractOk(sb, 'links.zip', bytes);
    expect(result.files).toEqual(['links/link/evil.txt', 'links/real.txt']);
    // `link` is a real directory this extraction made, not a symlink and not a file.
    expect(fs.lstatSync(path.join(dest, 'link')).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(dest, 'link/evil.txt'), 'utf8')).toBe('through the link?');
    expect(fs.existsSync(path.join(dest, 'fifo'))).toBe(false);
  });
});

describe('zip bombs', () => {
  it('refuses more than 10000 entries from the central directory count before writing anything', async () => {
    const entries = Array.from({ length: 10001 }, (_, i) => ({ name: `f${i}.txt`, content: Buffer.from('x') }));
    await extractFails(sb, 'many.zip', buildZip(entries), 'Archive has too many files (> 10000). Possible archive bomb.');
  });

  it('accepts exactly 10000 entries', async () => {
    const entries = Array.from({ length: 10000 }, (_, i) => ({ name: `d${i % 10}/f${i}.txt`, content: Buffer.from(String(i)) }));
    const { dest, result } = await extractOk(sb, 'edge.zip', buildZip(entries));
    expect(result.extracted).toBe(10000);
    expect(fs.readFileSync(path.join(dest, 'd7/f9997.txt'), 'utf8')).toBe('9997');
  });

  it('stops overlapping entries (all sharing one local header) at the cap', async () => {
    const payload = Buffer.alloc(4 * MIB, 0x61);
    const entries = [
      { name: 'e0.txt', content: payload, method: 8 as const },
      ...Array.from({ length: 50 }, (_, i) => ({ name: `e${i + 1}.txt`, content: payload, method: 8 as const, shareLocalHeaderOf: 0 })),
    ];
    const bytes = buildZip(entries);
    expect(bytes.length).toBeLessThan(64 * 1024); // small archive, 204 MiB declared
    await extractFails(sb, 'overlap.zip', bytes, 'Extraction too large (max 10485760 bytes). Possible zip bomb.', 10 * MIB);
  });

  it('stops a single highly compressed member larger than the cap', async () => {
    const bytes = buildZip([{ name: 'bomb.bin', content: Buffer.alloc(20 * MIB), method: 8 }]);
    const err = await extractFails(sb, 'one.zip', bytes, /^Extraction too large .*zip bomb/, 5 * MIB);
    expect(err.message).toBe('Extraction too large (max 5242880 bytes). Possible zip bomb.');
  });

  it('fails (not as a client mistake) when a header understates the inflated size', async () => {
    const bytes = buildZip([{ name: 'liar.bin', content: Buffer.alloc(8 * MIB), method: 8, declaredSize: 100 }]);
    await extractFails(sb, 'liar.zip', bytes, 'other', 64 * MIB);
  });
});

describe('zip failures', () => {
  it('a corrupt archive is not a ValueError and leaves nothing', async () => {
    await extractFails(sb, 'junk.zip', Buffer.from('this is not a zip file at all, just text'), 'other');
  });

  it('a truncated archive is not a ValueError and leaves nothing', async () => {
    const bytes = await yazlZip({ 'a.bin': noise(200_000), 'b.bin': noise(200_000, 2) });
    await extractFails(sb, 'cut.zip', bytes.subarray(0, bytes.length - 30), 'other');
  });

  it('removes what was already written when a later member fails', async () => {
    const bytes = buildZip([
      { name: 'first.txt', content: Buffer.from('written before the failure') },
      { name: '../late-evil', content: Buffer.from('x') },
    ]);
    await extractFails(sb, 'late.zip', bytes, 'Zip-slip blocked: ../late-evil');
  });

  it('honours an abort signal: cleans up and throws the abort reason', async () => {
    const archive = writeArchive(sb, 'abort.zip', await yazlZip({ 'a.bin': noise(2 * MIB) }));
    const dest = await allocateExtractionDir(sb.base, 'abort.zip');
    const controller = new AbortController();
    const reason = new Error('client went away');
    controller.abort(reason);
    await expect(extractArchive(archive, 'abort.zip', dest, sb.base, { maxBytes: 64 * MIB, signal: controller.signal })).rejects.toBe(reason);
    expect(fs.existsSync(dest)).toBe(false);
  });

  it('rejects an unsupported suffix with the exact text and removes the destination', async () => {
    const archive = writeArchive(sb, 'x.rar', Buffer.from('rar'));
    const dest = await allocateExtractionDir(sb.base, 'x.rar');
    const err = await extractArchive(archive, 'x.rar', dest, sb.base, { maxBytes: MIB }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValueError);
    expect((err as Error).message).toBe('Unsupported archive format: x.rar');
    expect(fs.existsSync(dest)).toBe(false);
    expect(await fsp.readdir(sb.base)).toEqual([]);
  });
});

describe('zip CRC-32', () => {
  const first = Buffer.from('a good member, written before the bad one\n');
  const data = noise(300_000, 11);

  const flip = (bytes: Buffer, at: number) => bytes.writeUInt8(bytes.readUInt8(at) ^ 0xff, at);

  /** A zip made by Info-ZIP's `zip` (not our writer): `first.txt`, then `data.bin`, both as given. */
  function infoZip(level: '-0' | '-9'): Buffer {
    const src = path.join(sb.inbox, `src${level}`);
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'first.txt'), first);
    fs.writeFileSync(path.join(src, 'data.bin'), data);
    const out = path.join(sb.inbox, `made${level}.zip`);
    execFileSync('zip', ['-q', '-X', level, out, 'first.txt', 'data.bin'], { cwd: src });
    fs.rmSync(src, { recursive: true });
    const bytes = fs.readFileSync(out);
    fs.rmSync(out);
    return bytes;
  }

  it('extracts the untouched zip (the check passes on good bytes)', async () => {
    const { dest } = await extractOk(sb, 'good.zip', infoZip('-0'));
    expect(fs.readFileSync(path.join(dest, 'data.bin')).equals(data)).toBe(true);
  });

  it('a stored member whose data bytes were changed in place fails the extraction and leaves nothing', async () => {
    const bytes = infoZip('-0');
    // Stored: the member's bytes appear verbatim, once. Flip one near the end (past the first written chunk);
    // the headers, and the CRC-32 they carry, stay as `zip` wrote them.
    const at = bytes.indexOf(data);
    expect(at).toBeGreaterThan(0);
    expect(bytes.lastIndexOf(data)).toBe(at);
    flip(bytes, at + data.length - 10);
    const err = await extractFails(sb, 'flipped.zip', bytes, 'other');
    expect(err).toBeInstanceOf(ZipChecksumError);
    expect(err.message).toBe('Zip member failed its CRC-32 check: data.bin');
  });

  it('a deflated member whose central-directory CRC-32 does not match its bytes fails too', async () => {
    const bytes = infoZip('-9');
    const CENTRAL_HEADER = 0x02014b50;
    const CRC_OFFSET = 16;
    const NAME_OFFSET = 46;
    let patched = 0;
    for (let i = bytes.indexOf(Buffer.from('PK\x01\x02', 'latin1')); i !== -1; i = bytes.indexOf(Buffer.from('PK\x01\x02', 'latin1'), i + 4)) {
      expect(bytes.readUInt32LE(i)).toBe(CENTRAL_HEADER);
      const nameLength = bytes.readUInt16LE(i + 28);
      if (bytes.toString('latin1', i + NAME_OFFSET, i + NAME_OFFSET + nameLength) !== 'data.bin') continue;
      bytes.writeUInt32LE(bytes.readUInt32LE(i + CRC_OFFSET) ^ 1, i + CRC_OFFSET);
      patched++;
    }
    expect(patched).toBe(1);
    const err = await extractFails(sb, 'badcrc.zip', bytes, 'other');
    expect(err).toBeInstanceOf(ZipChecksumError);
  });

  it('over HTTP: 500 Archive extraction failed, and extract_error for a workspace upload', async () => {
    const bytes = infoZip('-0');
    flip(bytes, bytes.indexOf(data) + 1000);
    const srv = await startTestServer();
    // The server logs the failure (error and warn lines); keep them out of the test output.
    const restoreLog = setLogSink(() => {});
    try {
      const session = await srv.newSession();
      const post = async (route: string) => {
        const boundary = 'satchelCrcBoundary';
        const res = await srv.api(route, {
          method: 'POST',
          body: new Uint8Array(
            multipartBody(boundary, [
              { name: 'session_id', content: session },
              { name: 'file', filename: 'crc.zip', content: bytes },
            ]),
          ),
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      expect(await post('/api/upload/extract')).toEqual({ status: 500, body: { error: 'Archive extraction failed' } });
      const ws = await post('/api/workspace/upload');
      expect(ws.status).toBe(200);
      expect(ws.body).toMatchObject({ filename: 'crc.zip', extracted: false, extract_error: 'Archive extraction failed' });
      expect(fs.existsSync(path.join(srv.workspace, 'crc'))).toBe(false);
    } finally {
      restoreLog();
      await srv.stop();
    }
  });
});
