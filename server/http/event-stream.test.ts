// The event-stream transport over a real socket: its head, the heartbeat after silence, a stalled reader cut at
// the bound, and the end at server stop (at once, or after the owner's last frames, or at the deadline).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openSse } from '../testing/sse.js';
import { expectSecurityHeaders } from '../testing/security-headers.js';
import { EventStream, MAX_BUFFERED_BYTES, openEventStream, type EventStreamOptions } from './event-stream.js';
import { analyzeFraming } from './framing.js';
import type { RequestContext } from './respond.js';

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A server whose every request opens an event stream; `opened` gets each stream as it starts. */
async function serve(options: Omit<EventStreamOptions, 'name'>, opened: (stream: EventStream) => void): Promise<number> {
  server = http.createServer((req, res) => {
    const ctx = { req, res, framing: analyzeFraming(req.rawHeaders), cookies: [], close: false } as unknown as RequestContext;
    opened(openEventStream(ctx, { name: 'test stream', ...options }));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

describe('event stream', () => {
  it('sends the one head of every stream at once, before any frame', async () => {
    const port = await serve({ stopping: new AbortController().signal }, () => {});
    const stream = await openSse(port, '/');
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['cache-control']).toBe('no-cache');
    expect(stream.headers['x-accel-buffering']).toBe('no');
    expectSecurityHeaders((n) => stream.headers[n.toLowerCase()] ?? null);
    stream.close();
  });

  it('sends `: heartbeat` after the set silence, and a frame postpones it', async () => {
    const heartbeatMs = 150;
    let open!: EventStream;
    const port = await serve({ stopping: new AbortController().signal, heartbeatMs }, (s) => (open = s));
    const stream = await openSse(port, '/');
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, heartbeatMs / 2));
    open.write('event: x\ndata: {}\n\n');
    await stream.until((b) => b.comments.includes(' heartbeat'), heartbeatMs * 10);
    // The frame at half the silence restarted the count: the heartbeat came a full silence after it.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(heartbeatMs * 1.5 - 20);
    expect(stream.blocks[0]).toMatchObject({ event: 'x' });
    stream.close();
  });

  it('drops a reader that leaves more than MAX_BUFFERED_BYTES unsent, but not for a burst', async () => {
    let open!: EventStream;
    const port = await serve({ stopping: new AbortController().signal }, (s) => (open = s));
    // A reader that never reads: the socket's buffers fill and the rest queues in the server.
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const closed = new Promise<void>((r) => open.onClose(r));
    const frame = `data: ${'x'.repeat(64 * 1024)}\n\n`;
    // A burst twice the bound queues whole (a replay is no stall)...
    open.burst(() => {
      for (let i = 0; i < (2 * MAX_BUFFERED_BYTES) / frame.length; i++) open.write(frame);
    });
    expect(open.closed).toBe(false);
    // ...and live frames past the bound on top of it cut the reader.
    for (let i = 0; i < (2 * MAX_BUFFERED_BYTES) / frame.length && !open.closed; i++) open.write(frame);
    await closed;
    expect(open.closed).toBe(true);
    socket.destroy();
  });

  it('ends at once at a stop when the owner has nothing left to say, closing the connection', async () => {
    const stop = new AbortController();
    const port = await serve({ stopping: stop.signal, stopDeadlineMs: 0 }, (s) => s.write(': connected\n\n'));
    const stream = await openSse(port, '/');
    await stream.until((b) => b.comments.includes(' connected'));
    stop.abort();
    await stream.ended(1_000);
  });

  it('at a stop, lets the owner send its last frames, then ends the stream at the deadline', async () => {
    const stop = new AbortController();
    let open!: EventStream;
    const port = await serve({ stopping: stop.signal, stopDeadlineMs: 300 }, (s) => (open = s));
    const stream = await openSse(port, '/');
    const t0 = Date.now();
    stop.abort();
    open.write('event: cancel\ndata: {}\n\n');
    await stream.ended(2_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    expect(stream.frames().map((f) => f.event)).toEqual(['cancel']);
  });
});
