// POST /api/workspace/upload as one transaction: a refused part, a full disk or a departed
// client takes back every earlier part (files, extraction directories, Office sidecars, directories made for
// the target); and a cancelled extraction is an ordinary disconnect, not a WARN or ERROR in the log.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { yazlZip } from '../archive/testing/fixtures.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compress, noise } from '../archive/testing/fixtures.js';
import { buildTar } from '../archive/testing/tar-builder.js';
import { setLogSink } from '../core/log.js';
import { buildDocx, wPara } from '../office/testing/fixtures.js';
import { multipartBody, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';

const BOUNDARY = 'satchelTxnBoundary';
// Room for a few small files, not for the big one: the third part hits a full disk.
const TMPFS_BYTES = 1024 * 1024;
const DISCONNECT_DEADLINE_MS = 30_000;

type Part = Parameters<typeof multipartBody>[1][number];
let srv: TestServer;
let ws: string;
let session: string;

beforeAll(async () => {
  srv = await startTestServer();
  ws = await fs.realpath(srv.workspace);
  session = await srv.newSession();
});
afterAll(async () => {
  await srv.stop();
});

async function post(parts: Part[]) {
  const res = await srv.api('/api/workspace/upload', {
    method: 'POST',
    body: new Uint8Array(multipartBody(BOUNDARY, [{ name: 'session_id', content: session }, ...parts])),
    headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}


async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}

describe('all or nothing', () => {
  it('a dots-only third name: 400 as before, and the file, extraction and sidecar of the first two are gone', async () => {
    const parts: Part[] = [
      { name: 'path', content: 'txn/new' },
      { name: 'file', filename: 'report.docx', content: await buildDocx(wPara('Hello')) },
      { name: 'file1', filename: 'pack.zip', content: await yazlZip({ 'inner.txt': 'inner' }) },
      { name: 'file2', filename: '..', content: 'refused' },
    ];
    expect(await post(parts)).toEqual({ status: 400, body: { error: 'Invalid filename' } });
    // The target's directories were made by this request, so they go too.
    expect(await exists(path.join(ws, 'txn'))).toBe(false);

    // The same parts without the bad one succeed, and show what the failed request had placed.
    const ok = await post(parts.slice(0, 3));
    expect(ok.status).toBe(200);
    expect((await fs.readdir(path.join(ws, 'txn', 'new'))).sort()).toEqual(['pack', 'report.docx', 'report.docx.md']);
    expect(ok.body.files[0].sidecar.path).toBe(path.join(ws, 'txn', 'new', 'report.docx.md'));
  });

  it('keeps a target directory that already existed, and what was in it', async () => {
    await fs.mkdir(path.join(ws, 'kept'));
    await fs.writeFile(path.join(ws, 'kept', 'old.txt'), 'old');
    const res = await post([
      { name: 'path', content: 'kept' },
      { name: 'file', filename: 'a.txt', content: 'A' },
      { name: 'file1', filename: 'b.txt', content: 'B' },
      { name: 'file2', filename: '...', content: 'refused' },
    ]);
    expect(res).toEqual({ status: 400, body: { error: 'Invalid filename' } });
    expect(await fs.readdir(path.join(ws, 'kept'))).toEqual(['old.txt']);
  });
});

function tryMount(dir: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_BYTES}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `cannot mount a tmpfs here (${String((err as Error).message).split('\n')[0]})`;
  }
}

describe('a full disk on the third part', () => {
  it('answers 507 as before and leaves none of the earlier files', async (ctx) => {
    const full = path.join(ws, 'small-disk');
    await fs.mkdir(full);
    const skip = tryMount(full);
    if (skip) {
      console.log(`skipping the full-disk case: ${skip}`);
      ctx.skip();
    }
    try {
      const res = await post([
        { name: 'path', content: 'small-disk/in' },
        { name: 'file', filename: 'one.txt', content: 'one' },
        { name: 'file1', filename: 'two.txt', content: Buffer.alloc(100 * 1024, 2) },
        { name: 'file2', filename: 'big.bin', content: Buffer.alloc(2 * TMPFS_BYTES, 3) },
      ]);
      expect(res).toEqual({ status: 507, body: { error: 'Not enough disk space to store the upload' } });
      expect(await fs.readdir(full)).toEqual([]);
    } finally {
      execFileSync('umount', [full]);
    }
  });
});

describe('a client that leaves mid-extraction', () => {
  it('stops the extraction, takes back the earlier part, and logs nothing at WARN or ERROR', async () => {
    const lines: string[] = [];
    const restore = setLogSink((line) => lines.push(line));
    try {
      // bzip2 decodes slowly here: long enough to leave while members are being written.
      const entries = Array.from({ length: 80 }, (_, i) => ({ name: `f${i}.bin`, content: noise(64 * 1024, i + 1) }));
      const archive = compress(buildTar(entries), 'tar.bz2');
      const body = multipartBody(BOUNDARY, [
        { name: 'session_id', content: session },
        { name: 'path', content: 'leaving' },
        { name: 'file', filename: 'first.txt', content: 'first' },
        { name: 'file1', filename: 'slow.tar.bz2', content: archive },
      ]);
      const head =
        [
          'POST /api/workspace/upload HTTP/1.1',
          `Host: 127.0.0.1:${srv.port}`,
          `Authorization: Bearer ${TEST_TOKEN}`,
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
          `Content-Length: ${body.length}`,
        ].join('\r\n') + '\r\n\r\n';
      const socket = net.connect(srv.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(head);
      socket.write(body);
      const target = path.join(ws, 'leaving');
      const deadline = Date.now() + DISCONNECT_DEADLINE_MS;
      while (Date.now() < deadline && !(await exists(path.join(target, 'slow.tar', 'f0.bin')))) await new Promise((r) => setTimeout(r, 5));
      expect(await exists(path.join(target, 'first.txt'))).toBe(true);
      socket.destroy();
      while (Date.now() < deadline && (await exists(target))) await new Promise((r) => setTimeout(r, 20));
      expect(await exists(target)).toBe(false);
      while (Date.now() < deadline && (await fs.readdir(path.join(srv.stateDir, 'staging'))).length > 0) await new Promise((r) => setTimeout(r, 20));
      expect(await fs.readdir(path.join(srv.stateDir, 'staging'))).toEqual([]);
    } finally {
      restore();
    }
    expect(lines.filter((l) => / (WARN|ERROR) /.test(l))).toEqual([]);
  }, 60_000);
});

describe('targets the workspace never shows', () => {
  const file: Part = { name: 'file', filename: 'authorized_keys', content: 'ssh-ed25519 AAAA attacker' };

  it.each(['.ssh', '.SSH/sub', 'proj/.aws', '.config/gh'])('refuses %s as a target (403), creating nothing', async (target) => {
    const res = await post([{ name: 'path', content: target }, file]);
    expect(res).toEqual({ status: 403, body: { error: 'Upload target is a credential folder' } });
    expect(await exists(path.join(ws, target.split('/')[0]!))).toBe(false);
  });

  it('refuses a credential store reached through an ordinary-looking link, and removes what it made', async () => {
    await fs.mkdir(path.join(ws, '.ssh'), { mode: 0o700 });
    await fs.symlink('.ssh', path.join(ws, 'vis'));
    const res = await post([{ name: 'path', content: 'vis/sub' }, file]);
    expect(res).toEqual({ status: 403, body: { error: 'Upload target is a credential folder' } });
    expect(await fs.readdir(path.join(ws, '.ssh'))).toEqual([]);
  });

  it('writes into a hidden folder only when hidden files are shown', async () => {
    const note: Part = { name: 'file', filename: 'note.txt', content: 'n' };
    expect(await post([{ name: 'path', content: '.notes' }, note])).toEqual({
      status: 403,
      body: { error: 'Upload target is a hidden folder (turn on hidden files to use it)' },
    });
    expect(await exists(path.join(ws, '.notes'))).toBe(false);
    const shown = await post([{ name: 'path', content: '.notes' }, { name: 'hidden', content: '1' }, note]);
    expect(shown.status).toBe(200);
    expect(await fs.readFile(path.join(ws, '.notes', 'note.txt'), 'utf8')).toBe('n');
  });
});
