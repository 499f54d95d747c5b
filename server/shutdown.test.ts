// Shutdown: an upload in flight when the server stops either finishes or is cleaned up; nothing stays staged.
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { expect, it } from 'vitest';
import { multipartBody, startTestServer, TEST_TOKEN } from './testing/harness.js';

it('cuts a stalled upload after the grace period, removes its staged file, and resolves close()', async () => {
  const srv = await startTestServer({ shutdownGraceMs: 300 });
  const id = await srv.newSession();
  const body = multipartBody('b', [{ name: 'session_id', content: id }, { name: 'file', filename: 'slow.bin', content: Buffer.alloc(200_000, 1) }]);
  const socket = net.connect(srv.port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n` +
      `Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  socket.write(body.subarray(0, 100_000));
  const staging = path.join(srv.stateDir, 'staging');
  const deadline = Date.now() + 5000;
  while ((await fs.readdir(staging)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  expect((await fs.readdir(staging)).length).toBe(1);

  const started = Date.now();
  await srv.close();
  expect(Date.now() - started).toBeLessThan(5000);
  const settle = Date.now() + 5000;
  while ((await fs.readdir(staging)).length > 0 && Date.now() < settle) await new Promise((r) => setTimeout(r, 10));
  expect(await fs.readdir(staging)).toEqual([]);
  expect(await fs.readdir(path.join(srv.stateDir, 'attachments', id)).catch(() => [])).toEqual([]);
  socket.destroy();
  await fs.rm(srv.tmp, { recursive: true, force: true });
});
