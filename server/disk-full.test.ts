// A full disk: a real 2 MiB tmpfs under the state directory. The upload must fail with a clear error and leave
// nothing behind, and the server must keep answering. Needs root (mount); otherwise skipped with the reason.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './index.js';
import { multipartBody, TEST_TOKEN } from './testing/harness.js';

const TMPFS_BYTES = 2 * 1024 * 1024;

function tryMount(dir: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_BYTES}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `cannot mount a tmpfs here (${String((err as Error).message).split('\n')[0]})`;
  }
}

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-full-'));
const skipReason = tryMount(root);
if (skipReason) console.log(`skipping disk-full tests: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('a full disk', () => {
  let srv: RunningServer;
  let session: string;
  const auth = { Authorization: `Bearer ${TEST_TOKEN}` };

  beforeAll(async () => {
    await fs.mkdir(path.join(root, 'ws'));
    srv = await startServer({ host: '127.0.0.1', port: 0, stateDir: path.join(root, 'state'), token: TEST_TOKEN, maxUploadBytes: 64 * 1024 * 1024, defaultWorkspace: path.join(root, 'ws') });
    const res = await fetch(`${srv.origin}/api/session/new`, { method: 'POST', body: '{}', headers: auth });
    session = ((await res.json()) as { session: { session_id: string } }).session.session_id;
  });
  afterAll(async () => {
    await srv?.close();
    execFileSync('umount', [root]);
    await fs.rm(root, { recursive: true, force: true });
  });

  async function leftovers(): Promise<string[]> {
    const staging = await fs.readdir(path.join(root, 'state', 'staging'));
    const attachments = await fs.readdir(path.join(root, 'state', 'attachments', session)).catch(() => []);
    const ws = await fs.readdir(path.join(root, 'ws'));
    return [...staging, ...attachments, ...ws];
  }

  it.each([['/api/upload'], ['/api/workspace/upload'], ['/api/upload/extract']])('%s answers 507 and leaves nothing behind', async (route) => {
    const body = multipartBody('b', [{ name: 'session_id', content: session }, { name: 'file', filename: 'big.tar', content: Buffer.alloc(4 * 1024 * 1024, 1) }]);
    const res = await fetch(srv.origin + route, {
      method: 'POST',
      body: new Uint8Array(body),
      headers: { ...auth, 'Content-Type': 'multipart/form-data; boundary=b' },
      signal: AbortSignal.timeout(20_000),
    });
    expect(res.status).toBe(507);
    expect(await res.json()).toEqual({ error: 'Not enough disk space to store the upload' });
    expect(await leftovers()).toEqual([]);
    expect((await fetch(`${srv.origin}/health`)).status).toBe(200);
  });

  it('a .gz whose decompressed file does not fit answers 507 and leaves nothing behind', async () => {
    // 3 MiB of zeros gzip to about 3 KiB: the upload fits, what it holds does not (the tmpfs is 2 MiB).
    const gz = zlib.gzipSync(Buffer.alloc(3 * 1024 * 1024));
    const body = multipartBody('b', [{ name: 'session_id', content: session }, { name: 'file', filename: 'zeros.log.gz', content: gz }]);
    const res = await fetch(`${srv.origin}/api/upload`, {
      method: 'POST',
      body: new Uint8Array(body),
      headers: { ...auth, 'Content-Type': 'multipart/form-data; boundary=b' },
      signal: AbortSignal.timeout(20_000),
    });
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 507, body: { error: 'Not enough disk space to store the upload' } });
    expect(await leftovers()).toEqual([]);
  });

  it('an archive that does not fit answers 507 and removes the partial extraction', async () => {
    const zip = await new Promise<Buffer>((resolve) => {
      const z = new yazl.ZipFile();
      z.addBuffer(Buffer.alloc(3 * 1024 * 1024), 'zeros.bin');
      z.end();
      const chunks: Buffer[] = [];
      z.outputStream.on('data', (c: Buffer) => chunks.push(c));
      z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    });
    const body = multipartBody('b', [{ name: 'session_id', content: session }, { name: 'file', filename: 'zeros.zip', content: zip }]);
    const res = await fetch(`${srv.origin}/api/upload/extract`, {
      method: 'POST',
      body: new Uint8Array(body),
      headers: { ...auth, 'Content-Type': 'multipart/form-data; boundary=b' },
      signal: AbortSignal.timeout(20_000),
    });
    expect(await res.json()).toEqual({ error: 'Not enough disk space to extract the archive' });
    expect(res.status).toBe(507);
    expect(await leftovers()).toEqual([]);
  });
});

// A session write that fails must leave the session as it was, in memory and on disk.
const stateRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-full-state-'));
const stateSkip = tryMount(stateRoot);

describe.skipIf(stateSkip !== undefined)('a full state disk', () => {
  const auth = { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' };
  const start = () =>
    startServer({ host: '127.0.0.1', port: 0, stateDir: path.join(stateRoot, 'state'), token: TEST_TOKEN, maxUploadBytes: 1024 * 1024 });

  afterAll(async () => {
    execFileSync('umount', [stateRoot]);
    await fs.rm(stateRoot, { recursive: true, force: true });
  });

  it('answers 507 for a message or a rename it cannot save, and shows what is on disk before and after a restart', async () => {
    let srv = await start();
    const post = (route: string, body: unknown) => fetch(srv.origin + route, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    const created = await post('/api/session/new', {});
    const id = ((await created.json()) as { session: { session_id: string } }).session.session_id;
    expect((await post('/api/session/message', { session_id: id, text: 'kept' })).status).toBe(200);
    // Fill the disk to the last byte.
    await fs.writeFile(path.join(stateRoot, 'filler'), Buffer.alloc(TMPFS_BYTES)).catch(() => {});

    const message = await post('/api/session/message', { session_id: id, text: 'lost '.repeat(2000) });
    expect(message.status).toBe(507);
    expect(await message.json()).toEqual({ error: 'Not enough disk space to save the session' });
    const rename = await post('/api/session/rename', { session_id: id, title: 'Renamed' });
    expect(rename.status).toBe(507);

    const shown = async () => {
      const res = await fetch(`${srv.origin}/api/session?session_id=${id}`, { headers: auth });
      return ((await res.json()) as { session: { title: string; messages: { content: string }[] } }).session;
    };
    expect((await shown()).messages.map((m) => m.content)).toEqual(['kept']);
    expect((await shown()).title).toBe('Untitled');

    await fs.rm(path.join(stateRoot, 'filler'));
    await srv.close();
    srv = await start();
    expect((await shown()).messages.map((m) => m.content)).toEqual(['kept']);
    expect((await shown()).title).toBe('Untitled');
    await srv.close();
  });
});
