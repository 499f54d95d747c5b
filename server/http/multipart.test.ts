// multipart.ts through the upload routes: the spec-notes 4.1 checks, in order, before a byte of the body is read.
import fs from 'node:fs/promises';
import nodeFs from 'node:fs';
import v8 from 'node:v8';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { multipartBody, parseResponses, rawExchange, startTestServer, TEST_TOKEN, type TestServer, postMultipart, TEST_BOUNDARY, type Part } from '../testing/harness.js';
import { boundaryOf, fileTooLargeText } from './multipart.js';
import { STAGE_WRITE_BYTES } from './staged-file.js';
import { heapGrowingPercentSet, SERVER_HEAP_GROWING_PERCENT, STREAMING_HEAP_GROWING_PERCENT, STREAMING_LINGER_MS } from '../core/heap-growth.js';

const BOUNDARY = TEST_BOUNDARY;
let srv: TestServer;
let session: string;

beforeAll(async () => {
  srv = await startTestServer({ maxUploadBytes: 8 * 1024 * 1024 });
  session = await srv.newSession();
});
afterAll(async () => {
  await srv.stop();
});

const post = (pathname: string, parts: Part[], headers: Record<string, string> = {}) => postMultipart(srv, pathname, parts, headers);

async function stagingEmpty(): Promise<void> {
  expect(await fs.readdir(path.join(srv.stateDir, 'staging'))).toEqual([]);
}

describe('4.1 framing checks, in order, before the body', () => {
  const head = (lines: string[]) => lines.join('\r\n') + '\r\n\r\n';
  const base = () => [`POST /api/upload HTTP/1.1`, `Host: 127.0.0.1:${srv.port}`, `Authorization: Bearer ${TEST_TOKEN}`];

  it('413 with the cap in whole MiB when the declared length is over the cap, and closes', async () => {
    const { text, closed } = await rawExchange(srv.port, head([...base(), 'Content-Type: multipart/form-data; boundary=x', `Content-Length: ${8 * 1024 * 1024 + 1}`]));
    expect(closed).toBe(true);
    const [res] = parseResponses(text);
    expect(res!.status).toBe(413);
    expect(JSON.parse(res!.body)).toEqual({ error: 'File too large (max 8MB)' });
    expect(res!.headers.filter(([n]) => n === 'connection')).toEqual([['connection', 'close']]);
  });

  it('413 comes before the boundary check', async () => {
    const { text } = await rawExchange(srv.port, head([...base(), 'Content-Type: text/plain', `Content-Length: ${9 * 1024 * 1024}`]));
    expect(parseResponses(text)[0]!.status).toBe(413);
  });

  it('400 No boundary, closing only when a body is declared', async () => {
    const withBody = await rawExchange(srv.port, head([...base(), 'Content-Type: multipart/form-data', 'Content-Length: 5']) + 'hello');
    const [a] = parseResponses(withBody.text);
    expect(a!.status).toBe(400);
    expect(JSON.parse(a!.body)).toEqual({ error: 'No boundary in Content-Type' });
    expect(a!.header('connection')).toBe('close');

    const noBody = await rawExchange(
      srv.port,
      head([...base(), 'Content-Type: multipart/form-data', 'Content-Length: 0']) + head([`GET /api/health/agent HTTP/1.1`, `Host: 127.0.0.1`, 'Connection: close']),
    );
    const responses = parseResponses(noBody.text);
    expect(responses.map((r) => r.status)).toEqual([400, 200]);
    expect(responses[0]!.header('connection')).not.toBe('close');
  });

  it('accepts a quoted boundary', async () => {
    const res = await srv.api('/api/upload', {
      method: 'POST',
      body: new Uint8Array(multipartBody(BOUNDARY, [{ name: 'session_id', content: session }, { name: 'file', filename: 'q.txt', content: 'quoted' }])),
      headers: { 'Content-Type': `multipart/form-data; boundary="${BOUNDARY}"` },
    });
    expect(res.status).toBe(200);
  });

  it('400 on a malformed multipart body, nothing staged', async () => {
    const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\npartial data without the end`;
    const res = await srv.api('/api/upload', { method: 'POST', body, headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^Malformed multipart body/);
    await stagingEmpty();
  });
});

describe('4.1 on workspace upload: one file part per field name', () => {
  it('a later part with the same field name replaces the earlier one; distinct names all count', async () => {
    const id = await srv.newSession();
    const ws = await fs.realpath(srv.workspace);
    const { status, body } = await post('/api/workspace/upload', [
      { name: 'session_id', content: id },
      { name: 'path', content: 'fields' },
      { name: 'file', filename: 'first.txt', content: 'replaced' },
      { name: 'file1', filename: 'one.txt', content: '1' },
      { name: 'file', filename: 'second.txt', content: 'kept' },
      { name: 'file2', filename: 'two.txt', content: '2' },
    ]);
    expect(status).toBe(200);
    expect(body.count).toBe(3);
    expect(body.files.map((f: { filename: string }) => f.filename)).toEqual(['second.txt', 'one.txt', 'two.txt']);
    expect((await fs.readdir(path.join(ws, 'fields'))).sort()).toEqual(['one.txt', 'second.txt', 'two.txt']);
    await stagingEmpty();
  });
});

describe('a file part goes to its staging file in few, large writes (issue 37, finding 5)', () => {
  it('a 4 MiB upload is staged in at most 5 writes, every byte stored', async () => {
    // Writes to files in the staging folder only: the descriptor's path says where each one goes.
    const staging = path.join(await fs.realpath(srv.stateDir), 'staging') + path.sep;
    let writes = 0;
    const count = (fd: number): void => {
      try {
        if (nodeFs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(staging)) writes++;
      } catch {
        // Not a path (a socket): not a staging write.
      }
    };
    const writev = nodeFs.writev;
    const write = nodeFs.write;
    vi.spyOn(nodeFs, 'writev').mockImplementation(((fd: number, ...rest: unknown[]) => {
      count(fd);
      return (writev as (...args: unknown[]) => void)(fd, ...rest);
    }) as typeof nodeFs.writev);
    vi.spyOn(nodeFs, 'write').mockImplementation(((fd: number, ...rest: unknown[]) => {
      count(fd);
      return (write as (...args: unknown[]) => void)(fd, ...rest);
    }) as typeof nodeFs.write);
    try {
      const content = Buffer.alloc(4 * STAGE_WRITE_BYTES);
      for (let i = 0; i < content.length; i += 4) content.writeUInt32LE((i * 2654435761) >>> 0, i);
      const { status, body } = await post('/api/upload', [
        { name: 'session_id', content: session },
        { name: 'file', filename: 'four.bin', content },
      ]);
      expect(status).toBe(200);
      expect((await fs.readFile(body.path)).equals(content)).toBe(true);
      // One write per MiB and the part's tail (a write per 64 KiB socket chunk was 40 to 64).
      expect(writes).toBeGreaterThan(0);
      expect(writes).toBeLessThanOrEqual(5);
    } finally {
      vi.restoreAllMocks();
    }
    await stagingEmpty();
  });
});

describe("V8's heap growing factor while an upload streams (issue 37, finding 5)", () => {
  it('is raised for the body and set back STREAMING_LINGER_MS after the upload has ended, a refused one too', async () => {
    const set = vi.spyOn(v8, 'setFlagsFromString');
    const up = `--heap-growing-percent=${STREAMING_HEAP_GROWING_PERCENT}`;
    const down = `--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`;
    try {
      // Another test's upload may have left it raised: wait for the server's own factor first.
      await vi.waitFor(() => expect(heapGrowingPercentSet()).toBe(SERVER_HEAP_GROWING_PERCENT), { timeout: STREAMING_LINGER_MS * 3 });
      set.mockClear();
      const ok = await post('/api/upload', [
        { name: 'session_id', content: session },
        { name: 'file', filename: 'g.bin', content: Buffer.alloc(64 * 1024, 7) },
      ]);
      expect(ok.status).toBe(200);
      expect(heapGrowingPercentSet()).toBe(STREAMING_HEAP_GROWING_PERCENT);
      const refused = await post('/api/upload', [{ name: 'file', filename: 'h.bin', content: 'x' }]);
      expect(refused.status).toBe(404);
      // The second upload came within the linger: raised once, not lowered between the two.
      expect(set.mock.calls.map((c) => c[0])).toEqual([up]);
      await vi.waitFor(() => expect(set.mock.calls.map((c) => c[0])).toEqual([up, down]), { timeout: STREAMING_LINGER_MS * 3 });
      expect(heapGrowingPercentSet()).toBe(SERVER_HEAP_GROWING_PERCENT);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('uploads with a boundary on the wrong media type', () => {
  it.each(['text/plain; boundary=X', 'multipart/mixed; boundary=X', 'application/x-www-form-urlencoded; boundary=X'])('%s is 400 Invalid multipart form data', async (type) => {
    const res = await srv.api('/api/upload', { method: 'POST', headers: { 'Content-Type': type }, body: '--X\r\n\r\n--X--\r\n' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Invalid multipart form data' });
  });

  it('still answers No boundary in Content-Type first', async () => {
    const res = await srv.api('/api/upload', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'No boundary in Content-Type' });
  });
});

describe('boundaryOf and fileTooLargeText', () => {
  it.each([
    ['multipart/form-data; boundary=abc', 'abc'],
    ['multipart/form-data; boundary="q u"', 'q'], // the token stops at whitespace, then its quote goes
    ['multipart/form-data; boundary="quoted"', 'quoted'],
    ['multipart/form-data;BOUNDARY=Up; charset=utf-8', 'Up'],
    ['multipart/form-data; boundary=', undefined],
    ['multipart/form-data', undefined],
    [undefined, undefined],
  ])('%s → %s', (type, expected) => {
    expect(boundaryOf(type)).toBe(expected);
  });

  it('states the cap in whole MiB, rounded down', () => {
    expect(fileTooLargeText(8 * 1024 * 1024)).toBe('File too large (max 8MB)');
    expect(fileTooLargeText(8 * 1024 * 1024 - 1)).toBe('File too large (max 7MB)');
  });
});
