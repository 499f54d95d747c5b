// Zips whose end record has a harmless defect, made by the real `zip` tool and then damaged the way copies
// are damaged: bytes appended after the comment, the comment cut short, a comment length declared longer than
// the comment. `unzip -t` accepts each (checked here); Satchel extracts each byte-exact. Defects that change
// what would be written (a CRC, a member size) are still refused with the same end-record defect present.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readGuardedZip } from '../office/guarded-zip.js';
import { OFFICE_LIMITS } from '../office/index.js';
import { postMultipart, startTestServer } from '../testing/harness.js';
import { makeSandbox, noise, type Sandbox } from './testing/fixtures.js';
import { extractFails, extractOk } from './testing/harness.js';
import { hasTool } from './testing/real-tools.js';
import { ZipChecksumError } from './zip.js';
import { EOCD_BYTES } from './zip-end.js';

const HAVE_ZIP = hasTool('zip', 'zip') && hasTool('unzip', 'unzip');
if (!HAVE_ZIP) console.warn('skipping lenient-zip tests: zip and unzip (Info-ZIP) are not installed: apt-get install zip unzip');

const COMMENT = 'Archive comment written by zip -z, long enough to be cut short.';
const TEXT = Buffer.from('hello from a slightly damaged zip\n'.repeat(50));
const DATA = noise(20_000, 3);

let sb: Sandbox;
/** Where the tool runs: outside the sandbox, whose root may hold only its own folders. */
let scratch: string;
beforeEach(async () => {
  sb = await makeSandbox();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-zip-end-'));
});
afterEach(async () => {
  await sb.cleanup();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** `zip -z` of two files (one stored, so its bytes can be found and changed), with COMMENT as its comment. */
function infoZipWithComment(): Buffer {
  const src = fs.mkdtempSync(path.join(scratch, 'src-'));
  fs.writeFileSync(path.join(src, 'notes.txt'), TEXT);
  fs.writeFileSync(path.join(src, 'data.bin'), DATA);
  const out = path.join(scratch, `made-${Date.now()}-${Math.random()}.zip`);
  execFileSync('zip', ['-q', '-0', '-z', out, 'notes.txt', 'data.bin'], { cwd: src, input: COMMENT });
  const bytes = fs.readFileSync(out);
  expect(bytes.subarray(bytes.length - COMMENT.length).toString()).toBe(COMMENT);
  return bytes;
}

function eocdAt(bytes: Buffer): number {
  return bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
}

const DEFECTS: Record<string, (zip: Buffer) => Buffer> = {
  'a newline after the comment': (zip) => Buffer.concat([zip, Buffer.from('\n')]),
  '1,000 bytes of garbage after the comment': (zip) => Buffer.concat([zip, noise(1000, 9)]),
  'the comment cut short by 20 bytes': (zip) => zip.subarray(0, zip.length - 20),
  'a comment length declared 100 bytes longer than the comment': (zip) => {
    const out = Buffer.from(zip);
    out.writeUInt16LE(COMMENT.length + 100, eocdAt(out) + 20);
    return out;
  },
};

/** `unzip -t` on the bytes: its exit status (1 is "warnings", which still extracts everything). */
function unzipTest(bytes: Buffer): number {
  const file = path.join(scratch, `check-${Math.random()}.zip`);
  fs.writeFileSync(file, bytes);
  return spawnSync('unzip', ['-tq', file]).status ?? -1;
}

describe.skipIf(!HAVE_ZIP)('end-record defects unzip tolerates', () => {
  it.each(Object.keys(DEFECTS))('%s: unzip -t accepts it, extraction and the Office reader read it', async (defect) => {
    const bytes = DEFECTS[defect]!(infoZipWithComment());
    expect([0, 1]).toContain(unzipTest(bytes));
    const { dest, result } = await extractOk(sb, 'damaged.zip', bytes);
    expect([...result.files].sort()).toEqual(['damaged/data.bin', 'damaged/notes.txt']);
    expect(fs.readFileSync(path.join(dest, 'notes.txt')).equals(TEXT)).toBe(true);
    expect(fs.readFileSync(path.join(dest, 'data.bin')).equals(DATA)).toBe(true);
    const members = await readGuardedZip(bytes, OFFICE_LIMITS);
    expect(members.get('notes.txt')?.equals(TEXT)).toBe(true);
  });

  it('the comment cut short and a member changed: still refused for its CRC-32', async () => {
    const bytes = Buffer.from(DEFECTS['the comment cut short by 20 bytes']!(infoZipWithComment()));
    const at = bytes.indexOf(DATA);
    bytes.writeUInt8(bytes.readUInt8(at + 100) ^ 1, at + 100);
    const err = await extractFails(sb, 'crc.zip', bytes, 'other');
    expect(err).toBeInstanceOf(ZipChecksumError);
    await expect(readGuardedZip(bytes, OFFICE_LIMITS)).rejects.toThrow("Zip member failed its CRC-32 check: data.bin");
  });

  it('a comment length declared longer and a member size changed in the central directory: still refused', async () => {
    const bytes = Buffer.from(DEFECTS['a comment length declared 100 bytes longer than the comment']!(infoZipWithComment()));
    const central = bytes.lastIndexOf(Buffer.from('PK\x01\x02data.bin'.slice(0, 4), 'latin1'));
    // The last central header is data.bin's (zip writes them in argument order); its uncompressed size + 1.
    bytes.writeUInt32LE(bytes.readUInt32LE(central + 24) + 1, central + 24);
    await extractFails(sb, 'size.zip', bytes, 'other');
    await expect(readGuardedZip(bytes, OFFICE_LIMITS)).rejects.toThrow(/Not a readable zip|unreadable|size/i);
  });

  it('a stray end-record signature in garbage that is not the archive is not taken for it', async () => {
    const fake = Buffer.alloc(EOCD_BYTES + 10);
    fake.writeUInt32LE(0x06054b50, 0);
    fake.writeUInt16LE(500, 20); // a comment longer than what follows, and a central directory that is not there
    const bytes = Buffer.concat([noise(3000, 4), fake]);
    await extractFails(sb, 'fake.zip', bytes, 'other');
    await expect(readGuardedZip(bytes, OFFICE_LIMITS)).rejects.toThrow(/Not a readable zip/);
  });

  it('over HTTP: a .zip upload with its comment cut short is extracted (200), files byte-exact', async () => {
    const bytes = DEFECTS['the comment cut short by 20 bytes']!(infoZipWithComment());
    const srv = await startTestServer();
    try {
      const session = await srv.newSession();
      const res = await postMultipart(srv, '/api/workspace/upload', [
        { name: 'session_id', content: session },
        { name: 'file', filename: 'cut.zip', content: bytes },
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ filename: 'cut.zip', extracted: true });
      expect(fs.readFileSync(path.join(srv.workspace, 'cut', 'notes.txt')).equals(TEXT)).toBe(true);
    } finally {
      await srv.stop();
    }
  });
});
