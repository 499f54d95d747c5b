// A gzip bomb attached to a chat (issue 25: a plain `.gz` is decompressed at attach time). 512 MiB of zeros
// gzip to about half a MiB, under the upload cap; decompressing must stop at the extracted-bytes cap (10 × the
// upload cap), streamed, never whole in memory, with a 400 and nothing left in the session folder or staging.
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACTED_CAP_FACTOR } from '../archive/index.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';

const UPLOAD_CAP = 1024 * 1024;
const MIB = 1024 * 1024;
/** What the bomb holds: 51 times the extracted-bytes cap. */
const BOMB_MIB = 512;
/** Heap the server may grow by while refusing it: a few decoder chunks, far from the cap (10 MiB) or the bomb. */
const MAX_HEAP_GROWTH = 32 * MIB;

let srv: TestServer;
let bomb: Buffer;

beforeAll(async () => {
  srv = await startTestServer({ maxUploadBytes: UPLOAD_CAP });
  const zeros = Buffer.alloc(MIB);
  const gzip = zlib.createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  for (let i = 0; i < BOMB_MIB; i++) if (!gzip.write(zeros)) await new Promise((r) => gzip.once('drain', r));
  gzip.end();
  await done;
  bomb = Buffer.concat(out);
}, 60_000);
afterAll(async () => {
  await srv.stop();
});

describe('gzip bomb through POST /api/upload', () => {
  it('stops at the extracted-bytes cap: 400, nothing stored, nothing staged, heap flat', async () => {
    expect(bomb.length).toBeLessThan(UPLOAD_CAP - 4096);
    const id = await srv.newSession();
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    const { status, body } = await postMultipart(srv, '/api/upload', [
      { name: 'session_id', content: id },
      { name: 'file', filename: 'huge.log.gz', content: bomb },
    ]);
    const grown = process.memoryUsage().heapUsed - before;
    expect({ status, body }).toEqual({ status: 400, body: { error: `Extraction too large (max ${EXTRACTED_CAP_FACTOR * UPLOAD_CAP} bytes). Possible zip bomb.` } });
    expect(grown).toBeLessThan(MAX_HEAP_GROWTH);
    expect(await fs.readdir(path.join(srv.stateDir, 'attachments', id)).catch(() => [])).toEqual([]);
    expect(await fs.readdir(path.join(srv.stateDir, 'staging'))).toEqual([]);
    // The server still answers.
    expect((await srv.api('/api/sessions')).status).toBe(200);
  });

  it('a bomb under a lower SATCHEL_WEBUI_MAX_EXTRACTED_MB stops at that cap instead', async () => {
    const id = await srv.newSession();
    process.env.SATCHEL_WEBUI_MAX_EXTRACTED_MB = '1';
    try {
      const { status, body } = await postMultipart(srv, '/api/upload', [
        { name: 'session_id', content: id },
        { name: 'file', filename: 'huge.gz', content: bomb },
      ]);
      expect({ status, body }).toEqual({ status: 400, body: { error: `Extraction too large (max ${MIB} bytes). Possible zip bomb.` } });
    } finally {
      delete process.env.SATCHEL_WEBUI_MAX_EXTRACTED_MB;
    }
    expect(await fs.readdir(path.join(srv.stateDir, 'attachments', id)).catch(() => [])).toEqual([]);
  });
});
