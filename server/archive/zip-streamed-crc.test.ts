// The CRC-32 check of zip members too large for the in-memory path (zip.ts crcChecked: over SMALL_MEMBER_BYTES
// they are streamed through yauzl to disk). yauzl checks no CRC, so without this check a member whose bytes
// were changed would be written as if nothing happened. Archives are made by Info-ZIP's `zip`, the tool people
// use, and one byte of the member's data is flipped afterwards; headers and the CRC they carry stay as written.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setLogSink } from '../core/log.js';
import { multipartBody, startTestServer } from '../testing/harness.js';
import { listTree, makeSandbox, noise, type Sandbox } from './testing/fixtures.js';
import { extractFails, extractOk, MIB } from './testing/harness.js';
import { hasTool } from './testing/real-tools.js';
import { SMALL_MEMBER_BYTES } from './zip-small.js';
import { ZipChecksumError } from './zip.js';

const CRC_ERROR = 'Zip member failed its CRC-32 check: big/data.bin';
/** Comfortably over SMALL_MEMBER_BYTES, so the member takes the streamed path whatever it compresses to. */
const MEMBER_BYTES = 3 * MIB;
const LOCAL_HEADER = 0x04034b50;

/** Text that deflates well but not to nothing (varied words): its deflate stream has real Huffman blocks. */
function prose(length: number): Buffer {
  const words = ['satchel', 'archive', 'member', 'checksum', 'stream', 'inflate', 'folder', 'upload', 'byte'];
  const pick = noise(length, 5);
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < length; i++) {
    const word = words[pick[i]! % words.length]! + (pick[i]! % 11 === 0 ? '\n' : ' ');
    parts.push(word);
    size += word.length;
  }
  return Buffer.from(parts.join('').slice(0, length), 'latin1');
}

const available = hasTool('zip', 'zip');

describe.runIf(available)('zip CRC-32 of a streamed member (over 1 MiB, made by Info-ZIP)', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  /** `big/data.bin` (with `first.txt` before it, which is written before the bad member is reached). */
  function infoZip(data: Buffer, level: '-0' | '-6'): Buffer {
    const src = path.join(sb.inbox, `src${level}`);
    fs.mkdirSync(path.join(src, 'big'), { recursive: true });
    fs.writeFileSync(path.join(src, 'first.txt'), 'written first\n');
    fs.writeFileSync(path.join(src, 'big', 'data.bin'), data);
    const out = path.join(sb.inbox, `made${level}.zip`);
    execFileSync('zip', ['-q', '-X', '-D', level, out, 'first.txt', 'big/data.bin'], { cwd: src });
    fs.rmSync(src, { recursive: true });
    const bytes = fs.readFileSync(out);
    fs.rmSync(out);
    return bytes;
  }

  /** Where `name`'s data starts in the archive, its method and sizes, from its local header. */
  function memberData(bytes: Buffer, name: string): { start: number; method: number; compressed: number; size: number } {
    const signature = Buffer.from('PK\x03\x04', 'latin1');
    for (let i = bytes.indexOf(signature); i !== -1; i = bytes.indexOf(signature, i + 4)) {
      expect(bytes.readUInt32LE(i)).toBe(LOCAL_HEADER);
      const nameLength = bytes.readUInt16LE(i + 26);
      if (bytes.toString('latin1', i + 30, i + 30 + nameLength) !== name) continue;
      return {
        start: i + 30 + nameLength + bytes.readUInt16LE(i + 28),
        method: bytes.readUInt16LE(i + 8),
        compressed: bytes.readUInt32LE(i + 18),
        size: bytes.readUInt32LE(i + 22),
      };
    }
    throw new Error(`no local header for ${name}`);
  }

  /** A stored member with one data byte flipped past its first megabyte: still the right size, wrong bytes. */
  function storedFlipped(data: Buffer): Buffer {
    const bytes = infoZip(data, '-0');
    const member = memberData(bytes, 'big/data.bin');
    expect(member).toMatchObject({ method: 0, compressed: MEMBER_BYTES, size: MEMBER_BYTES });
    const at = member.start + 2 * MIB + 12_345;
    bytes[at] = bytes[at]! ^ 0x01;
    return bytes;
  }

  /**
   * A deflated member with one bit flipped where the stream still inflates to exactly its declared size (so
   * yauzl's size check passes and only the CRC-32 can notice). Found by trying bits from the middle of the
   * stream: the place depends on the `zip` build, the search does not.
   */
  function deflatedFlipped(data: Buffer): Buffer {
    const bytes = infoZip(data, '-6');
    const member = memberData(bytes, 'big/data.bin');
    expect(member.method).toBe(8);
    expect(member.size).toBe(MEMBER_BYTES);
    const stream = bytes.subarray(member.start, member.start + member.compressed);
    for (let off = Math.floor(stream.length / 2); off < stream.length; off++) {
      for (let bit = 1; bit < 0x100; bit <<= 1) {
        const candidate = Buffer.from(stream);
        candidate[off] = candidate[off]! ^ bit;
        let out: Buffer;
        try {
          out = inflateRawSync(candidate, { maxOutputLength: MEMBER_BYTES + 1 });
        } catch {
          continue;
        }
        if (out.length !== MEMBER_BYTES || out.equals(data)) continue;
        stream[off] = stream[off]! ^ bit;
        return bytes;
      }
    }
    throw new Error('no single-bit change of the deflate stream keeps its size');
  }

  it('the member really takes the streamed path, and the untouched archives extract byte-exact', async () => {
    expect(MEMBER_BYTES).toBeGreaterThan(SMALL_MEMBER_BYTES);
    const data = noise(MEMBER_BYTES, 21);
    for (const level of ['-0', '-6'] as const) {
      const { dest } = await extractOk(sb, `good${level}.zip`, infoZip(data, level));
      expect(fs.readFileSync(path.join(dest, 'big', 'data.bin')).equals(data)).toBe(true);
      fs.rmSync(dest, { recursive: true });
    }
  });

  it('a stored member with one byte flipped: the CRC-32 error, and no folder or file left', async () => {
    const err = await extractFails(sb, 'stored.zip', storedFlipped(noise(MEMBER_BYTES, 21)), 'other');
    expect(err).toBeInstanceOf(ZipChecksumError);
    expect(err.message).toBe(CRC_ERROR);
  });

  it('a deflated member with one bit flipped that still inflates to its size: the CRC-32 error, nothing left', async () => {
    const data = prose(MEMBER_BYTES);
    const err = await extractFails(sb, 'deflated.zip', deflatedFlipped(data), 'other');
    expect(err).toBeInstanceOf(ZipChecksumError);
    expect(err.message).toBe(CRC_ERROR);
  });

  it('over HTTP, as a user uploads it: upload/extract and attachment/extract answer 500 and keep nothing; a workspace upload reports it', async () => {
    const srv = await startTestServer();
    const lines: string[] = [];
    const restoreLog = setLogSink((line) => lines.push(line));
    try {
      const session = await srv.newSession();
      const attachments = path.join(srv.tmp, 'state', 'attachments');
      const post = async (route: string, filename: string, bytes: Buffer) => {
        const boundary = 'satchelStreamedCrc';
        const res = await srv.api(route, {
          method: 'POST',
          body: new Uint8Array(
            multipartBody(boundary, [
              { name: 'session_id', content: session },
              { name: 'file', filename, content: bytes },
            ]),
          ),
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const cases = [
        ['stored.zip', storedFlipped(noise(MEMBER_BYTES, 21))],
        ['deflated.zip', deflatedFlipped(prose(MEMBER_BYTES))],
      ] as const;
      for (const [filename, bytes] of cases) {
        lines.length = 0;
        expect(await post('/api/upload/extract', filename, bytes)).toEqual({ status: 500, body: { error: 'Archive extraction failed' } });
        // The cause, as the log says it (and only there: a corrupt archive is not the client's mistake).
        expect(lines.some((l) => l.includes(`ZipChecksumError: ${CRC_ERROR}`)), lines.join('\n')).toBe(true);
        // Nothing of the extraction stayed in the session's attachment folder (first.txt was written before
        // the bad member was reached, and big/data.bin was being written when its check failed).
        // The session's own folder, empty, is all there is.
        const tree = await listTree(attachments);
        expect(tree).toHaveLength(1);
        expect(tree[0]).toMatch(/^[^/]+\/$/);

        lines.length = 0;
        const ws = await post('/api/workspace/upload', filename, bytes);
        expect(ws.status).toBe(200);
        expect(ws.body).toMatchObject({ filename, extracted: false, extract_error: 'Archive extraction failed' });
        expect(lines.some((l) => l.includes(`ZipChecksumError: ${CRC_ERROR}`)), lines.join('\n')).toBe(true);
        expect(await listTree(srv.workspace)).toEqual([]);

        // A stored upload extracted later (a draft's chip after a reload) goes through the same engine.
        const stored = await post('/api/upload', filename, bytes);
        expect(stored.status).toBe(200);
        lines.length = 0;
        const later = await srv.json('/api/attachment/extract', { session_id: session, path: stored.body.path });
        expect({ status: later.status, body: await later.json() }).toEqual({ status: 500, body: { error: 'Archive extraction failed' } });
        expect(lines.some((l) => l.includes(`ZipChecksumError: ${CRC_ERROR}`)), lines.join('\n')).toBe(true);
        // Only the stored archive itself, byte for byte as uploaded.
        const after = await listTree(attachments);
        expect(after.filter((p) => !p.endsWith('/'))).toEqual([path.relative(attachments, String(stored.body.path))]);
        expect(fs.readFileSync(String(stored.body.path)).equals(bytes)).toBe(true);
        fs.rmSync(String(stored.body.path));
      }
      // The same archives, unflipped, extract through both routes: the 500s above were the check.
      const good = infoZip(noise(MEMBER_BYTES, 21), '-0');
      const ok = await post('/api/upload/extract', 'good.zip', good);
      expect(ok.status).toBe(200);
      expect(fs.readFileSync(path.join(String(ok.body.dest), 'big', 'data.bin')).equals(noise(MEMBER_BYTES, 21))).toBe(true);
    } finally {
      restoreLog();
      await srv.stop();
    }
  });
});
