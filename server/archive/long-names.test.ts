// Member names longer than the file system allows (a 300-byte name; ext4 and APFS take 255), in archives made
// by the tools people use: shortened the way uploaded names are (240 bytes, suffix kept, `-1` when two
// shorten alike), never a failed extraction; a path longer than PATH_MAX even then is skipped by name.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_NAME_BYTES } from '../core/names.js';
import { setLogSink } from '../core/log.js';
import { postMultipart, startTestServer } from '../testing/harness.js';
import { makeSandbox, type Sandbox } from './testing/fixtures.js';
import { extractOk } from './testing/harness.js';
import { hasTool, run } from './testing/real-tools.js';
import { PATH_MAX_BYTES } from './fit-names.js';

/** 296 letters and `.txt`: 300 bytes, over every common file system's 255. */
const LONG_A = `${'a'.repeat(296)}.txt`;
/** Same first 240 bytes as LONG_A once shortened: the two would collide without a `-1`. */
const LONG_A2 = `${'a'.repeat(290)}bbbbbb.txt`;
const SHORTENED_A = `${'a'.repeat(MAX_NAME_BYTES - 4)}.txt`;
const SHORTENED_A2 = `${'a'.repeat(MAX_NAME_BYTES - 4)}-1.txt`;
/** A 300-byte directory name with an ordinary file in it. */
const LONG_DIR = `${'d'.repeat(300)}`;
const SHORTENED_DIR = 'd'.repeat(MAX_NAME_BYTES);

let sb: Sandbox;
let work: string;
beforeEach(async () => {
  sb = await makeSandbox();
  work = await fsp.mkdtemp(path.join(sb.root, '..', 'satchel-longnames-'));
  for (const [name, text] of [['one.txt', 'first long\n'], ['two.txt', 'second long\n'], ['three.txt', 'in a long folder\n'], ['short.txt', 'short\n']] as const) {
    await fsp.writeFile(path.join(work, name), text);
  }
});
afterEach(async () => {
  await sb.cleanup();
  await fsp.rm(work, { recursive: true, force: true });
});

/** What each tool's archive holds: the three long names and one ordinary one. */
const RENAMES: [string, string][] = [
  ['one.txt', LONG_A],
  ['two.txt', LONG_A2],
  ['three.txt', `${LONG_DIR}/three.txt`],
];
const FILES = ['one.txt', 'two.txt', 'three.txt', 'short.txt'];

/** Rename members with zipnote: its own listing back, with `@=<new name>` under each renamed one. */
function infoZipRename(archive: string): void {
  const renames = new Map(RENAMES);
  const listing = run('zipnote', [archive], work).toString('utf8');
  const edited = listing.replace(/^@ (.+)$/gm, (line, name: string) => (renames.has(name) ? `${line}\n@=${renames.get(name)}` : line));
  run('zipnote', ['-w', archive], work, Buffer.from(edited));
}

async function expectShortened(archive: string): Promise<void> {
  const { dest, result } = await extractOk(sb, path.basename(archive), fs.readFileSync(archive));
  const base = path.basename(dest);
  expect([...result.files].sort()).toEqual([`${base}/${SHORTENED_A}`, `${base}/${SHORTENED_A2}`, `${base}/${SHORTENED_DIR}/three.txt`, `${base}/short.txt`].sort());
  expect(result.skipped).toEqual([]);
  expect(fs.readFileSync(path.join(dest, SHORTENED_A), 'utf8')).toBe('first long\n');
  expect(fs.readFileSync(path.join(dest, SHORTENED_A2), 'utf8')).toBe('second long\n');
  expect(fs.readFileSync(path.join(dest, SHORTENED_DIR, 'three.txt'), 'utf8')).toBe('in a long folder\n');
}

describe('a 300-byte member name is shortened, not a failed extraction', () => {
  it.skipIf(!hasTool('zip', 'zip') || !hasTool('zipnote', 'zip'))('Info-ZIP zip (names set with zipnote -w)', async () => {
    run('zip', ['-q', 'long.zip', ...FILES], work);
    infoZipRename('long.zip');
    await expectShortened(path.join(work, 'long.zip'));
  });

  it.skipIf(!hasTool('7z', 'p7zip-full'))('7-Zip (7z a -tzip, names set with 7z rn)', async () => {
    run('7z', ['a', '-tzip', '-bd', 'seven.zip', ...FILES], work);
    run('7z', ['rn', '-bd', 'seven.zip', ...RENAMES.flat()], work);
    await expectShortened(path.join(work, 'seven.zip'));
  });

  it.skipIf(!hasTool('tar', 'tar'))('GNU tar (././@LongLink names, set with --transform)', async () => {
    run('tar', ['-cf', 'gnu.tar', '--format=gnu', ...RENAMES.map(([from, to]) => `--transform=s|^${from}$|${to}|`), ...FILES], work);
    await expectShortened(path.join(work, 'gnu.tar'));
  });

  it.skipIf(!hasTool('bsdtar', 'libarchive-tools'))('bsdtar (pax names, set with -s)', async () => {
    run('bsdtar', ['-czf', 'bsd.tar.gz', ...RENAMES.map(([from, to]) => `-s|^${from}$|${to}|`), ...FILES], work);
    await expectShortened(path.join(work, 'bsd.tar.gz'));
  });

  it.skipIf(!hasTool('tar', 'tar'))('a path longer than PATH_MAX even with every name shortened is skipped by name, the rest extracted', async () => {
    const segment = 'p'.repeat(250);
    const deep = `${Array.from({ length: Math.ceil(PATH_MAX_BYTES / 251) + 1 }, () => segment).join('/')}/deep.txt`;
    run('tar', ['-cf', 'deep.tar', '--format=gnu', `--transform=s|^one.txt$|${deep}|`, 'one.txt', 'short.txt'], work);
    const { dest, result } = await extractOk(sb, 'deep.tar', fs.readFileSync(path.join(work, 'deep.tar')));
    expect(result.files).toEqual(['deep/short.txt']);
    expect(result.skipped).toEqual([{ name: deep, reason: 'name-too-long' }]);
    expect(fs.readFileSync(path.join(dest, 'short.txt'), 'utf8')).toBe('short\n');
  });

  it.skipIf(!hasTool('zip', 'zip') || !hasTool('zipnote', 'zip'))('over HTTP: 200 with the shortened names for /api/upload/extract and a workspace upload', async () => {
    run('zip', ['-q', 'long.zip', ...FILES], work);
    infoZipRename('long.zip');
    const bytes = fs.readFileSync(path.join(work, 'long.zip'));
    const srv = await startTestServer();
    const lines: string[] = [];
    const restoreLog = setLogSink((line) => lines.push(line));
    try {
      const session = await srv.newSession();
      const parts = [
        { name: 'session_id', content: session },
        { name: 'file', filename: 'long.zip', content: bytes },
      ];
      const extract = await postMultipart(srv, '/api/upload/extract', parts);
      expect(extract.status).toBe(200);
      expect(extract.body.files).toContain(`long/${SHORTENED_A}`);
      expect(extract.body.skipped).toEqual([]);
      const ws = await postMultipart(srv, '/api/workspace/upload', parts);
      expect(ws.status).toBe(200);
      expect(ws.body).toMatchObject({ filename: 'long.zip', extracted: true });
      expect(fs.readFileSync(path.join(srv.workspace, 'long', SHORTENED_DIR, 'three.txt'), 'utf8')).toBe('in a long folder\n');
      expect(lines.filter((l) => / (ERROR|WARN) /.test(l))).toEqual([]);
    } finally {
      restoreLog();
      await srv.stop();
    }
  });

  it('a workspace upload into a folder whose name or path is too long: 400 with the reason, not a 403 or 500', async () => {
    const srv = await startTestServer();
    try {
      const session = await srv.newSession();
      for (const target of ['n'.repeat(300), `${'p'.repeat(250)}/`.repeat(Math.ceil(PATH_MAX_BYTES / 251))]) {
        const res = await postMultipart(srv, '/api/workspace/upload', [
          { name: 'session_id', content: session },
          { name: 'path', content: target },
          { name: 'file', filename: 'x.txt', content: 'hi' },
        ]);
        expect(res).toEqual({ status: 400, body: { error: 'Upload target path is too long for the file system' } });
      }
      expect(await fsp.readdir(srv.workspace)).toEqual([]);
    } finally {
      await srv.stop();
    }
  });
});
