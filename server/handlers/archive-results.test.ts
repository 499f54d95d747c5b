// What the two upload endpoints say about an archive's members that were not extracted, and about archives
// the engine cannot read: the engine's result and texts, as the client receives them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../archive/testing/zip-builder.js';
import { hasTool } from '../archive/testing/real-tools.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';

let srv: TestServer;
let session: string;
let work: string;

beforeAll(async () => {
  srv = await startTestServer();
  session = await srv.newSession();
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-archive-results-'));
});
afterAll(async () => {
  await srv.stop();
  await fs.rm(work, { recursive: true, force: true });
});

const withLink = () =>
  buildZip([
    { name: 'run.sh', content: Buffer.from('#!/bin/sh\n'), unixMode: 0o100755 },
    { name: 'latest', content: Buffer.from('run.sh'), unixMode: 0o120777 },
    { name: 'empty/', unixMode: 0o040755 },
  ]);

const extract = (filename: string, content: Buffer) =>
  postMultipart(srv, '/api/upload/extract', [
    { name: 'session_id', content: session },
    { name: 'file', filename, content },
  ]);
const toWorkspace = (filename: string, content: Buffer) =>
  postMultipart(srv, '/api/workspace/upload', [
    { name: 'session_id', content: session },
    { name: 'file', filename, content },
  ]);

describe('skipped members', () => {
  it('POST /api/upload/extract lists what was not written, and why', async () => {
    const { status, body } = await extract('linked.zip', withLink());
    expect(status).toBe(200);
    expect(body.files).toEqual(['linked/run.sh']);
    expect(body.skipped).toEqual([
      { name: 'latest', reason: 'symlink' },
      { name: 'empty/', reason: 'directory-only' },
    ]);
  });

  it('POST /api/workspace/upload carries the same list on the item', async () => {
    const { status, body } = await toWorkspace('linked-ws.zip', withLink());
    expect(status).toBe(200);
    expect(body.extracted).toBe(true);
    expect(body.skipped).toEqual([
      { name: 'latest', reason: 'symlink' },
      { name: 'empty/', reason: 'directory-only' },
    ]);
  });
});

describe('archives the engine cannot read', () => {
  it.skipIf(!hasTool('zip', 'zip'))('`zip -P`: a 400 naming the member, and the same item-level extract_error', async () => {
    await fs.writeFile(path.join(work, 'secret.txt'), 'secret\n');
    execFileSync('zip', ['-q', '-P', 'pw', 'secret.zip', 'secret.txt'], { cwd: work });
    const bytes = await fs.readFile(path.join(work, 'secret.zip'));
    expect(await extract('secret.zip', bytes)).toEqual({ status: 400, body: { error: 'Encrypted archive members are not supported: secret.txt' } });
    const { status, body } = await toWorkspace('secret.zip', bytes);
    expect(status).toBe(200);
    expect(body.extracted).toBe(false);
    expect(body.extract_error).toBe('Encrypted archive members are not supported: secret.txt');
  });
});
