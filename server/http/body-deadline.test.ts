// Total deadlines on request bodies, at the socket: a client that trickles its body (a byte now and then, each
// well within the idle deadline) is cut, a JSON body after JSON_BODY_DEADLINE_MS, an upload once it falls below
// the minimum pace after its grace (multipart.ts UPLOAD_MIN_BYTES_PER_SECOND); honest bodies are not.
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, parseResponses, startTestServer, TEST_TOKEN, type RawResponse, type TestServer } from '../testing/harness.js';
import { BODY_IDLE_TIMEOUT_MS, JSON_BODY_DEADLINE_MS } from './lifecycle.js';
import { STALL_TIMEOUT_MS, UPLOAD_GRACE_MS, UPLOAD_MIN_BYTES_PER_SECOND } from './multipart.js';

// Shortened for the test, in the same proportions as the real values: every trickled byte comes well within
// the idle deadlines, so only a total deadline can end these requests.
const IDLE_MS = 600;
const DEADLINE_MS = 1_200;
const GRACE_MS = 1_200;
const MIN_BYTES_PER_SECOND = 2_000;
const TRICKLE_EVERY_MS = 100;
/** How long the trickling client keeps going before it gives up: far past every deadline above. */
const CLIENT_PATIENCE_MS = 6_000;

let srv: TestServer;
let session: string;
beforeAll(async () => {
  srv = await startTestServer({
    bodyIdleTimeoutMs: IDLE_MS,
    bodyDeadlineMs: DEADLINE_MS,
    uploadStallTimeoutMs: IDLE_MS,
    uploadGraceMs: GRACE_MS,
    uploadMinBytesPerSecond: MIN_BYTES_PER_SECOND,
  });
  session = await srv.newSession();
});
afterAll(async () => {
  await srv.stop();
});

interface Trickled {
  response: RawResponse | undefined;
  /** From the head's last byte to the response's first. */
  answeredAfterMs: number;
  closed: boolean;
  bodyBytesSent: number;
}

/**
 * Send `head`, then `body` `step` bytes every `everyMs` (the first right away), until the server answers or
 * CLIENT_PATIENCE_MS pass; waits for the connection to close after an answer (up to a second).
 */
function trickle(head: string, body: Buffer, step: number, everyMs: number): Promise<Trickled> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(srv.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let sent = 0;
    let started = 0;
    let answeredAfterMs = -1;
    let ticker: NodeJS.Timeout | undefined;
    const finish = (closed: boolean): void => {
      clearInterval(ticker);
      clearTimeout(patience);
      clearTimeout(afterAnswer);
      socket.destroy();
      const [response] = parseResponses(Buffer.concat(chunks).toString('latin1'));
      resolve({ response, answeredAfterMs, closed, bodyBytesSent: sent });
    };
    const patience = setTimeout(() => finish(false), CLIENT_PATIENCE_MS);
    let afterAnswer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk) => {
      if (answeredAfterMs < 0) {
        answeredAfterMs = Date.now() - started;
        clearInterval(ticker);
        afterAnswer = setTimeout(() => finish(false), 1_000);
      }
      chunks.push(chunk);
    });
    socket.on('close', () => finish(true));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
      reject(err);
    });
    socket.on('connect', () => {
      socket.write(head);
      started = Date.now();
      const next = (): void => {
        if (sent >= body.length || socket.destroyed) return clearInterval(ticker);
        socket.write(body.subarray(sent, sent + step));
        sent = Math.min(body.length, sent + step);
      };
      next();
      ticker = setInterval(next, everyMs);
    });
  });
}

const headOf = (route: string, contentType: string, length: number) =>
  [
    `POST ${route} HTTP/1.1`,
    `Host: 127.0.0.1:${srv.port}`,
    `Authorization: Bearer ${TEST_TOKEN}`,
    `Content-Type: ${contentType}`,
    `Content-Length: ${length}`,
  ].join('\r\n') + '\r\n\r\n';

describe('the real limits', () => {
  it('are what the comments say, and the total deadlines are not longer than a trickle could exploit', () => {
    expect(BODY_IDLE_TIMEOUT_MS).toBe(30_000);
    expect(JSON_BODY_DEADLINE_MS).toBe(30_000);
    expect(STALL_TIMEOUT_MS).toBe(60_000);
    expect(UPLOAD_GRACE_MS).toBe(60_000);
    expect(UPLOAD_MIN_BYTES_PER_SECOND).toBe(64 * 1024);
  });
});

describe('a JSON body has a total deadline', () => {
  it('a body trickled a byte at a time is cut: 408 Request timed out, and the connection closed', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'w'.repeat(200) }));
    const got = await trickle(headOf('/api/profile/switch', 'application/json', body.length), body, 1, TRICKLE_EVERY_MS);
    expect(got.response?.status).toBe(408);
    expect(JSON.parse(got.response!.body)).toEqual({ error: 'Request timed out' });
    expect(got.response!.header('connection')).toBe('close');
    expect(got.closed).toBe(true);
    // Cut at the total deadline, not at the idle one (every byte came within it), and long before the body ended.
    expect(got.answeredAfterMs).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(got.answeredAfterMs).toBeLessThan(DEADLINE_MS + 1_500);
    expect(got.bodyBytesSent).toBeLessThan(body.length);
  });

  it('/mcp reads its JSON the same way', async () => {
    const { token } = (await (await srv.api('/api/mcp')).json()) as { token: string };
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'p'.repeat(200) } }));
    const head = headOf('/mcp', 'application/json', body.length).replace(TEST_TOKEN, token).replace('\r\n\r\n', '\r\nAccept: application/json, text/event-stream\r\n\r\n');
    const got = await trickle(head, body, 1, TRICKLE_EVERY_MS);
    expect(got.response?.status).toBe(408);
    expect(JSON.parse(got.response!.body)).toEqual({ error: 'Request timed out' });
    expect(got.closed).toBe(true);
  });

  it('a body that arrives in pieces within the deadline is read as usual', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'paced' }));
    // Four pieces over ~0.6 s: slower than any real client, inside the (shortened) deadline.
    const got = await trickle(headOf('/api/profile/switch', 'application/json', body.length), body, Math.ceil(body.length / 4), 150);
    expect(got.response?.status).toBe(200);
    expect(JSON.parse(got.response!.body)).toEqual({ ok: true, active: 'paced' });
  });
});

describe('an upload must keep a minimum pace once its grace is over', () => {
  const boundary = 'satchelPaceBoundary';
  const form = (content: Buffer) =>
    multipartBody(boundary, [
      { name: 'session_id', content: session },
      { name: 'file', filename: 'slow.bin', content },
    ]);
  const staged = async () => fs.readdir(path.join(srv.stateDir, 'staging'));

  it('a trickled upload is cut: 408 Upload timed out: too slow, closed, nothing left in staging', async () => {
    const body = form(Buffer.alloc(4_000, 0x61));
    const got = await trickle(headOf('/api/upload', `multipart/form-data; boundary=${boundary}`, body.length), body, 5, TRICKLE_EVERY_MS);
    expect(got.response?.status).toBe(408);
    expect(JSON.parse(got.response!.body)).toEqual({ error: 'Upload timed out: too slow' });
    expect(got.response!.header('connection')).toBe('close');
    expect(got.closed).toBe(true);
    // 50 B/s: the grace and the few bytes' allowance (well under a second at 2,000 B/s) are all it got.
    expect(got.answeredAfterMs).toBeGreaterThanOrEqual(GRACE_MS - 50);
    expect(got.answeredAfterMs).toBeLessThan(GRACE_MS + 1_500);
    expect(await staged()).toEqual([]);
    const listed = (await (await srv.api(`/api/session?session_id=${session}`)).json()) as { session: { attachments: unknown[] } };
    expect(listed.session.attachments).toEqual([]);
  });

  it('an upload slower than the grace allows on its own but above the minimum pace completes', async () => {
    // ~5 KB/s (over the 2,000 B/s minimum) for ~2.5 s: longer than the grace, so it is the pace that lets it in.
    const content = Buffer.alloc(12_000, 0x62);
    const body = form(content);
    const got = await trickle(headOf('/api/upload', `multipart/form-data; boundary=${boundary}`, body.length), body, 500, TRICKLE_EVERY_MS);
    expect(got.answeredAfterMs).toBeGreaterThan(GRACE_MS);
    expect(got.response?.status).toBe(200);
    const item = JSON.parse(got.response!.body) as { filename: string; size: number; path: string };
    expect(item).toMatchObject({ filename: 'slow.bin', size: content.length });
    expect((await fs.readFile(item.path)).equals(content)).toBe(true);
    expect(await staged()).toEqual([]);
  });
});
