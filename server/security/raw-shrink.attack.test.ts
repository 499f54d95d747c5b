// Attack: a file that shrinks while GET /api/workspace/raw streams it. The head already promised its size, so
// a response that ends short must close the connection: a kept-alive socket would have the next response's
// bytes read as the rest of this body (a client would mis-frame everything after it).
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';

const SIZE = 64 * 1024 * 1024;
const DEADLINE_MS = 20_000;

let srv: TestServer;
let session: string;
beforeAll(async () => {
  srv = await startTestServer();
  session = await srv.newSession();
  const fh = await fs.open(path.join(srv.workspace, 'shrinks.bin'), 'w');
  await fh.truncate(SIZE);
  await fh.write(Buffer.from([0, 1, 2, 3]), 0, 4, 0);
  await fh.close();
});
afterAll(async () => {
  await srv.stop();
});

it('a file cut short mid-response ends the connection instead of leaving it mis-framed', async () => {
  const file = path.join(srv.workspace, 'shrinks.bin');
  const outcome = await new Promise<{ closed: boolean; received: number; responses: number }>((resolve, reject) => {
    const socket = net.connect(srv.port, '127.0.0.1');
    let received = 0;
    let text = '';
    const responses = () => text.split('HTTP/1.1 ').length - 1;
    let truncated = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ closed: false, received, responses: responses() });
    }, DEADLINE_MS);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      text += chunk.toString('latin1');
      if (!truncated) {
        truncated = true;
        // Read slowly: the server cannot have read the whole file before it shrinks.
        socket.pause();
        void fs.truncate(file, 1024).then(() => socket.resume(), reject);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, received, responses: responses() });
    });
    socket.on('error', () => {});
    // A second request pipelined behind it: its answer must never follow a short body on the same socket.
    socket.write(
      `GET /api/workspace/raw?session_id=${session}&path=shrinks.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n` +
        `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    );
  });
  expect(outcome.received).toBeLessThan(SIZE);
  expect(outcome.closed).toBe(true);
  expect(outcome.responses, 'a response written after a body cut short').toBe(1);
}, DEADLINE_MS + 5_000);
