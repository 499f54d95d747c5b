// GET /api/sessions/export sent as it is made, over a real server: a paused download stops the reading (a
// conversation deleted while it is paused is not in the archive: it was not read yet), the archive stays valid
// (`unzip -t`), a client leaving halfway leaves a server that exports again, and an archive imports back to the
// same conversations, each member with the bytes a single conversation's export has.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { yazlZip } from '../archive/testing/fixtures.js';
import { postMultipart, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';

const run = promisify(execFile);

/** Conversations of the paused-download history, and how many of the last ones are deleted while it is paused. */
const CONVERSATIONS = 16;
const DELETED_LAST = 3;
/** Rows per conversation and characters per row: random text deflates little, so the archive is ~1 MiB per conversation, far more than the socket buffers hold. */
const ROWS = 8;
const ROW_CHARS = 95_000;
/** How long the paused download is left: the server has long filled every buffer it could by then. */
const PAUSE_MS = 1_500;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

async function members(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  const out = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c)).on('error', reject).on('end', () => {
          out.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.on('end', resolve).on('error', reject);
    zip.readEntry();
  });
  return out;
}

/** `unzip -t` on the bytes: the archive as any unzip tool checks it. */
async function unzipTest(srv: TestServer, bytes: Buffer): Promise<string> {
  const file = path.join(srv.tmp, `check-${randomBytes(4).toString('hex')}.zip`);
  await fs.writeFile(file, bytes);
  const { stdout } = await run('unzip', ['-t', file]);
  await fs.rm(file);
  return stdout;
}

/** GET the export with a client that reads `firstBytes`, stops reading until `whilePaused` is done, then reads the rest. */
function pausedDownload(srv: TestServer, whilePaused: () => Promise<void>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${srv.origin}/api/sessions/export`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } }, (res) => {
      const chunks: Buffer[] = [];
      let paused = false;
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (paused) return;
        paused = true;
        res.pause();
        setTimeout(() => {
          whilePaused().then(() => res.resume(), reject);
        }, PAUSE_MS);
      });
      res.on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
    });
    req.on('error', reject);
  });
}

const getJson = async (srv: TestServer, pathname: string): Promise<Json> => (await (await srv.api(pathname)).json()) as Json;

describe('Export all, sent as it is made', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ maxUploadBytes: 8 * 1024 * 1024 });
    for (let c = 0; c < CONVERSATIONS; c++) {
      const id = await srv.newSession();
      for (let r = 0; r < ROWS; r++) {
        const res = await srv.json('/api/session/message', { session_id: id, text: randomBytes((ROW_CHARS * 3) / 4).toString('base64') });
        expect(res.status).toBe(200);
      }
      expect((await srv.json('/api/session/rename', { session_id: id, title: `Conversation ${c}` })).status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('a paused download stops the reading: conversations deleted while it is paused are not in the archive, which is valid', async () => {
    // The archive's order is the list's: the last active first.
    const order = ((await getJson(srv, '/api/sessions')).sessions as Json[]).map((s) => s.session_id as string);
    expect(order).toHaveLength(CONVERSATIONS);
    const deleted = order.slice(-DELETED_LAST);
    const bytes = await pausedDownload(srv, async () => {
      for (const id of deleted) expect((await srv.json('/api/session/delete', { session_id: id })).status).toBe(200);
    });
    expect(await unzipTest(srv, bytes)).toMatch(/No errors detected/);
    const names = [...(await members(bytes)).keys()];
    expect(order.filter((id) => names.some((n) => n.endsWith(` ${id}/conversation.json`)))).toEqual(order.slice(0, -DELETED_LAST));
    for (const id of deleted) expect(names.some((n) => n.includes(id))).toBe(false);
    for (const id of deleted) expect((await srv.json('/api/session/restore', { session_id: id })).status).toBe(200);
  }, 120_000);

  it('a client leaving halfway: the server goes on answering, and the next export is whole', async () => {
    const controller = new AbortController();
    const res = await srv.api('/api/sessions/export', { signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.read().catch(() => undefined);
    expect((await srv.api('/api/sessions')).status).toBe(200);
    const bytes = Buffer.from(await (await srv.api('/api/sessions/export')).arrayBuffer());
    expect(await unzipTest(srv, bytes)).toMatch(/No errors detected/);
    expect([...(await members(bytes)).keys()].filter((n) => n.endsWith('/conversation.json'))).toHaveLength(CONVERSATIONS);
  }, 120_000);
});

describe('Export all, imported back', () => {
  let from: TestServer;
  let into: TestServer;
  beforeAll(async () => {
    from = await startTestServer({ maxUploadBytes: 8 * 1024 * 1024 });
    into = await startTestServer({ maxUploadBytes: 8 * 1024 * 1024 });
  });
  afterAll(async () => {
    await from?.stop();
    await into?.stop();
  });

  it('gives the same conversations (rows, versions, attachments, draft), each member the bytes of its own export', async () => {
    const rich = await from.newSession();
    const up = async (name: string, content: string) => {
      const { status, body } = await postMultipart(from, '/api/upload', [{ name: 'session_id', content: rich }, { name: 'file', filename: name, content }]);
      expect(status).toBe(200);
      return body;
    };
    const notes = await up('notes.txt', 'line one\nline two\n');
    const pack = await yazlZip({ 'a.txt': 'alpha', 'dir/b.txt': 'beta' });
    const extracted = await postMultipart(from, '/api/upload/extract', [{ name: 'session_id', content: rich }, { name: 'file', filename: 'pack.zip', content: pack }]);
    expect(extracted.status).toBe(200);
    const extraction = { kind: 'extraction', name: 'pack.zip', path: extracted.body.dest, extracted: true, file_count: 2 };
    expect((await from.json('/api/session/message', { session_id: rich, text: 'first ```js\nx()\n```', attachments: [notes, extraction] })).status).toBe(200);
    expect((await from.json('/api/session/message', { session_id: rich, text: 'second' })).status).toBe(200);
    expect((await from.json('/api/session/message', { session_id: rich, text: 'first, edited', message_index: 0 })).status).toBe(200);
    expect((await from.json('/api/session/rename', { session_id: rich, title: 'Trip plan' })).status).toBe(200);
    const plain = await from.newSession();
    expect((await from.json('/api/session/message', { session_id: plain, text: 'just words' })).status).toBe(200);
    await from.newSession();

    const archive = Buffer.from(await (await from.api('/api/sessions/export')).arrayBuffer());
    expect(await unzipTest(from, archive)).toMatch(/No errors detected/);
    const inArchive = await members(archive);
    const withoutTime = (json: string) => json.replace(/"exported_at": "[^"]*"/, '"exported_at": ""');
    const singleJson = async (srv: TestServer, id: string): Promise<string> => {
      const res = await srv.api(`/api/session/export?session_id=${id}&format=json`);
      const bytes = Buffer.from(await res.arrayBuffer());
      return res.headers.get('content-type')!.startsWith('application/zip') ? (await members(bytes)).get('conversation.json')!.toString('utf8') : bytes.toString('utf8');
    };
    const originals = ((await getJson(from, '/api/sessions')).sessions as Json[]).map((s) => s.session_id as string);
    for (const id of originals) {
      const member = [...inArchive].find(([n]) => n.endsWith(` ${id}/conversation.json`))!;
      expect(withoutTime(member[1].toString('utf8'))).toBe(withoutTime(await singleJson(from, id)));
    }

    const { status, body } = await postMultipart(into, '/api/session/import', [{ name: 'file', filename: 'all.zip', content: archive }]);
    expect(status).toBe(200);
    const copies = body.sessions as Json[];
    expect(copies).toHaveLength(originals.length);
    // Each copy exports to the same document as its original: rows, versions, attachments, bytes of the files.
    const comparable = (json: string) => {
      const doc = JSON.parse(json) as Json;
      return { title: doc.title, messages: doc.messages, attachments: doc.attachments, draft: doc.draft };
    };
    const originalDocs = await Promise.all(originals.map(async (id) => comparable(await singleJson(from, id))));
    const copyDocs = await Promise.all(copies.map(async (s) => comparable(await singleJson(into, s.session_id as string))));
    const byTitle = (docs: Json[]) => [...docs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(byTitle(copyDocs)).toEqual(byTitle(originalDocs));
    const richCopy = copies.find((s) => s.title === 'Trip plan')!;
    const copyDir = path.join(into.stateDir, 'attachments', richCopy.session_id as string);
    expect(await fs.readFile(path.join(copyDir, 'notes.txt'), 'utf8')).toBe('line one\nline two\n');
    expect(await fs.readFile(path.join(copyDir, path.basename(extracted.body.dest as string), 'dir', 'b.txt'), 'utf8')).toBe('beta');
    expect(originalDocs.find((d) => d.title === 'Trip plan')!.messages[0]._versions.before[0][0].content).toMatch(/^first /);
  }, 120_000);
});
