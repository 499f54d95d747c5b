// Attacks on today's archive changes, through POST /api/upload/extract on a live server: the Info-ZIP Unicode
// Path extra field (a name that differs from the header's, to smuggle `../` or an absolute path past a check of
// the header name), permission bits (set-uid, set-gid, sticky, group/other write must never survive), tar hard
// links written as copies (a link out of the tree, a link to a symlink member, a link copied a thousand times),
// and GNU sparse members whose PAX name points outside. Nothing may appear outside the extraction folder.
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTar, tarHeader, type RawTarEntry } from '../archive/testing/tar-builder.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';

const UPLOAD_CAP = 1024 * 1024;

let srv: TestServer;
let session: string;

beforeAll(async () => {
  srv = await startTestServer({ maxUploadBytes: UPLOAD_CAP });
  session = await srv.newSession();
});
afterAll(async () => {
  await srv.stop();
});

async function extract(filename: string, content: Buffer) {
  return postMultipart(srv, '/api/upload/extract', [
    { name: 'session_id', content: session },
    { name: 'file', filename, content },
  ]);
}

/** Every path under the server's temp folder whose name contains `marker`. */
async function findNamed(marker: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.name.includes(marker)) found.push(full);
      if (e.isDirectory()) await walk(full);
    }
  };
  await walk(srv.tmp);
  return found;
}

// ---- zip by hand: one stored member per entry, with extra fields and a Unix mode ----

interface ZipMember {
  name: string;
  content: Buffer;
  unixMode?: number;
  extra?: Buffer;
}

function zipWithExtras(members: ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name, 'utf8');
    const extra = m.extra ?? Buffer.alloc(0);
    const crc = zlib.crc32(m.content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(m.content.length, 18);
    local.writeUInt32LE(m.content.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(m.content.length, 20);
    central.writeUInt32LE(m.content.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE(((m.unixMode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    const localPart = Buffer.concat([local, name, extra, m.content]);
    locals.push(localPart);
    centrals.push(Buffer.concat([central, name, extra]));
    offset += localPart.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** Info-ZIP Unicode Path extra field (0x7075) naming `unicode`, valid for the header name `headerName`. */
function unicodePath(headerName: string, unicode: string): Buffer {
  const data = Buffer.concat([Buffer.from([1]), Buffer.alloc(4), Buffer.from(unicode, 'utf8')]);
  data.writeUInt32LE(zlib.crc32(Buffer.from(headerName, 'utf8')), 1);
  const head = Buffer.alloc(4);
  head.writeUInt16LE(0x7075, 0);
  head.writeUInt16LE(data.length, 2);
  return Buffer.concat([head, data]);
}

// ---- tar with chosen modes, and PAX headers ----

function withMode(header: Buffer, mode: number): Buffer {
  header.write(mode.toString(8).padStart(7, '0') + '\0', 100, 'ascii');
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return header;
}

function pad(data: Buffer): Buffer {
  return Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}

function tarFileWithMode(name: string, content: Buffer, mode: number): Buffer {
  return Buffer.concat([withMode(tarHeader({ name, content }), mode), pad(content)]);
}

/** A PAX extended header ('x') carrying `records` for the member that follows. */
function paxHeader(records: Record<string, string>): Buffer {
  let body = '';
  for (const [k, v] of Object.entries(records)) {
    const tail = ` ${k}=${v}\n`;
    let len = tail.length + 1;
    while (String(len).length + tail.length !== len) len++;
    body += `${len}${tail}`;
  }
  const data = Buffer.from(body, 'utf8');
  const header = tarHeader({ name: 'PaxHeaders/x', content: data });
  header.write('x', 156, 'ascii');
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return Buffer.concat([header, pad(data)]);
}

const END = Buffer.alloc(1024);
const tarOf = (...parts: Buffer[]) => Buffer.concat([...parts, END]);
const entries = (list: RawTarEntry[]) => buildTar(list);

describe('Info-ZIP Unicode Path extra field', () => {
  it('is honoured when its CRC matches the header name (the control: the field is read at all)', async () => {
    const zip = zipWithExtras([{ name: 'header-name.txt', content: Buffer.from('x'), extra: unicodePath('header-name.txt', 'caf\u00e9-unicode.txt') }]);
    const res = await extract('uni0.zip', zip);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.files.map((f: string) => path.basename(f))).toEqual(['caf\u00e9-unicode.txt']);
  });

  it('a unicode name with ../ behind a harmless header name is refused, nothing written', async () => {
    const zip = zipWithExtras([{ name: 'harmless.txt', content: Buffer.from('x'), extra: unicodePath('harmless.txt', '../../uni-escape-1.txt') }]);
    const res = await extract('uni1.zip', zip);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/slip/i);
    expect(await findNamed('uni-escape-1')).toEqual([]);
    expect(await findNamed('harmless')).toEqual([]);
  });

  it('an absolute unicode name is refused', async () => {
    const target = path.join(srv.tmp, 'uni-escape-2.txt');
    const zip = zipWithExtras([{ name: 'a.txt', content: Buffer.from('x'), extra: unicodePath('a.txt', target) }]);
    const res = await extract('uni2.zip', zip);
    expect(res.status).toBe(400);
    expect(await findNamed('uni-escape-2')).toEqual([]);
  });

  it('a backslash traversal in the unicode name is refused', async () => {
    const zip = zipWithExtras([{ name: 'b.txt', content: Buffer.from('x'), extra: unicodePath('b.txt', '..\\..\\uni-escape-3.txt') }]);
    const res = await extract('uni3.zip', zip);
    expect(res.status).toBe(400);
    expect(await findNamed('uni-escape-3')).toEqual([]);
  });

  it('a NUL inside the unicode name is refused, not cut', async () => {
    const zip = zipWithExtras([{ name: 'c.txt', content: Buffer.from('x'), extra: unicodePath('c.txt', 'uni-nul.txt\0/../../x') }]);
    const res = await extract('uni4.zip', zip);
    expect([400]).toContain(res.status);
    expect(await findNamed('uni-nul')).toEqual([]);
  });

  it('a header name with ../ is refused even when a harmless unicode name does not match its CRC', async () => {
    const zip = zipWithExtras([{ name: '../uni-escape-5.txt', content: Buffer.from('x'), extra: unicodePath('other', 'fine.txt') }]);
    const res = await extract('uni5.zip', zip);
    expect(res.status).toBe(400);
    expect(await findNamed('uni-escape-5')).toEqual([]);
  });
});

describe('permission bits', () => {
  const umask = process.umask();
  const expectSafe = (mode: number) => {
    const perm = mode & 0o7777;
    expect(perm & 0o7000, 'set-uid, set-gid, sticky').toBe(0);
    expect(perm & 0o022, 'group/other write').toBe(0);
    expect(perm & 0o100, 'owner execute kept').toBe(0o100);
    expect(perm).toBe(0o755 & ~umask);
  };

  it('zip: 07777 becomes 0755 (owner execute kept, nothing else)', async () => {
    const zip = zipWithExtras([{ name: 'perm-zip.sh', content: Buffer.from('#!/bin/sh\n'), unixMode: 0o107777 }]);
    const res = await extract('perm.zip', zip);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectSafe((await fs.stat(path.join(res.body.dest, 'perm-zip.sh'))).mode);
  });

  it('tar: 07777 becomes 0755; a hard-link copy of it too', async () => {
    const tar = tarOf(
      tarFileWithMode('perm-tar.sh', Buffer.from('#!/bin/sh\n'), 0o7777),
      withMode(tarHeader({ name: 'perm-tar-copy.sh', type: 'hardlink', linkname: 'perm-tar.sh' }), 0o7777),
    );
    const res = await extract('perm.tar', tar);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectSafe((await fs.stat(path.join(res.body.dest, 'perm-tar.sh'))).mode);
    const copy = await fs.stat(path.join(res.body.dest, 'perm-tar-copy.sh'));
    expectSafe(copy.mode);
    expect(copy.nlink, 'a copy, not a link').toBe(1);
  });
});

describe('tar hard links', () => {
  it('a link to a file outside the archive is skipped, never followed', async () => {
    const outside = path.join(srv.tmp, 'hl-outside-secret.txt');
    await fs.writeFile(outside, 'outside secret');
    const tar = entries([
      { name: 'hl-abs', type: 'hardlink', linkname: outside },
      { name: 'hl-rel', type: 'hardlink', linkname: '../../../hl-outside-secret.txt' },
      { name: 'ok.txt', content: Buffer.from('ok') },
    ]);
    const res = await extract('hl1.tar', tar);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.files.map((f: string) => path.basename(f))).toEqual(['ok.txt']);
    expect(res.body.skipped).toEqual([
      { name: 'hl-abs', reason: 'hardlink' },
      { name: 'hl-rel', reason: 'hardlink' },
    ]);
  });

  it('a link to a symlink member is skipped (the symlink was never written)', async () => {
    const tar = entries([
      { name: 'sym', type: 'symlink', linkname: '/etc/passwd' },
      { name: 'via-sym', type: 'hardlink', linkname: 'sym' },
    ]);
    const res = await extract('hl2.tar', tar);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.files).toEqual([]);
    expect(res.body.skipped).toEqual([
      { name: 'sym', reason: 'symlink' },
      { name: 'via-sym', reason: 'hardlink' },
    ]);
  });

  it('a link to a file placed at a symlink-swapped parent is not followed out', async () => {
    // `d` is a symlink member (skipped), then a file `d/x`: the directory d is made by the writer, never through
    // the link; a hard link to `d/x` copies that file.
    const tar = entries([
      { name: 'd', type: 'symlink', linkname: srv.tmp },
      { name: 'd/x-hl', content: Buffer.from('inner') },
      { name: 'y-hl', type: 'hardlink', linkname: 'd/x-hl' },
    ]);
    const res = await extract('hl3.tar', tar);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await fs.readFile(path.join(res.body.dest, 'y-hl'), 'utf8')).toBe('inner');
    expect((await findNamed('x-hl')).every((p) => p.startsWith(res.body.dest))).toBe(true);
  });

  it('a thousand links to one file cannot write past the extraction cap', async () => {
    const big = Buffer.alloc(256 * 1024, 0x61);
    const list: RawTarEntry[] = [{ name: 'big.bin', content: big }];
    for (let i = 0; i < 1000; i++) list.push({ name: `copy-${i}.bin`, type: 'hardlink', linkname: 'big.bin' });
    // 256 KiB x 1001 = 250 MiB from a tar of about 760 KiB, gzip makes it a few KiB.
    const res = await extract('hl-bomb.tar.gz', zlib.gzipSync(entries(list)));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/too large/i);
    expect(await findNamed('copy-')).toEqual([]);
  });
});

describe('sparse members', () => {
  it('a PAX sparse member named outside is skipped and nothing is written anywhere', async () => {
    const tar = tarOf(
      paxHeader({ 'GNU.sparse.major': '1', 'GNU.sparse.minor': '0', 'GNU.sparse.name': '../../../sparse-escape.txt', 'GNU.sparse.realsize': '5' }),
      pad(Buffer.concat([tarHeader({ name: 'GNUSparseFile.0/sparse', content: Buffer.from('1\n0\n5\nhello') }), pad(Buffer.from('1\n0\n5\nhello'))])),
    );
    const res = await extract('sparse.tar', tar);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.files).toEqual([]);
    expect(res.body.skipped.map((s: { reason: string }) => s.reason)).toEqual(['sparse']);
    expect(await findNamed('sparse-escape')).toEqual([]);
  });
});
