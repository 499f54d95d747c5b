// The application's idle release (app.ts releaseIdle, run by core/idle-collect.ts once nothing has been asked for a
// while): the conversations kept whole and their kept answers go down to what the person comes back to, and every
// conversation let go answers the same bytes as before on its next read (issue 37, finding 8).
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type BuiltApp } from './app.js';
import { IDLE_KEPT_SESSIONS } from './store/session-cache.js';
import { DEFAULT_PROFILE } from './store/profiles.js';
import { TEST_TOKEN } from './testing/harness.js';

const CONVERSATIONS = IDLE_KEPT_SESSIONS + 4;

let tmp: string;
let built: BuiltApp;
let server: http.Server;
const ids: string[] = [];

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-app-idle-'));
  const workspace = path.join(tmp, 'workspace');
  await fs.mkdir(workspace);
  built = await createApp({ host: '127.0.0.1', port: 0, stateDir: path.join(tmp, 'state'), token: TEST_TOKEN, maxUploadBytes: 1 << 20, defaultWorkspace: workspace, preloadSpeech: false });
  server = http.createServer(built.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  for (let i = 0; i < CONVERSATIONS; i++) {
    const s = await built.app.sessions.create({ workspace, profile: DEFAULT_PROFILE });
    await built.app.sessions.addMessage(s.session_id, `note ${i}: the harbour ledger`, []);
    ids.push(s.session_id);
  }
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await built?.stop();
  await fs.rm(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

async function read(id: string): Promise<string> {
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/api/session?session_id=${id}`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text();
}

it('keeps the conversations last read once idle, and answers the others the same bytes read again', async () => {
  const before: string[] = [];
  for (const id of ids) before.push(await read(id));
  expect(ids.every((id) => built.app.sessions.isKept(id))).toBe(true);

  built.releaseIdle();
  expect(ids.map((id) => built.app.sessions.isKept(id))).toEqual(ids.map((_, i) => i >= CONVERSATIONS - IDLE_KEPT_SESSIONS));

  // Read again (the oldest first, so each is let go of and read back in turn): the same answer, byte for byte.
  for (const [i, id] of ids.entries()) expect(await read(id)).toBe(before[i]);
  expect(built.app.sessions.isKept(ids[0]!)).toBe(true);
});
