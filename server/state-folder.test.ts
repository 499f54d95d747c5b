// One owner per state folder (issue 33, finding 1), with real server processes: `npm run serve`'s entry (cli.ts),
// bundled. A second server on the folder refuses in one sentence naming the first one's address and exits 3,
// touching nothing of the first; a kill -9 of the owner leaves no lock behind, so the next start just runs.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXIT_ALREADY_RUNNING } from './cli.js';
import { READY_PREFIX } from './headless.js';
import { REPO_ROOT } from './testing/compile.js';
import { startTestServer } from './testing/harness.js';
import { SESSION_CHANGED_ELSEWHERE } from './store/db/session-rows.js';
import { SessionStore } from './store/sessions.js';

const START_DEADLINE_MS = 30_000;

let work: string;
let entry: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-state-folder-'));
  // Bundled into the repository's .cache, so its packages (sqlite3's binding, …) resolve from node_modules.
  await fs.mkdir(path.join(REPO_ROOT, '.cache'), { recursive: true });
  const out = await fs.mkdtemp(path.join(REPO_ROOT, '.cache', 'state-folder-'));
  entry = path.join(out, 'cli.mjs');
  await build({ entryPoints: [path.join(REPO_ROOT, 'server', 'cli.ts')], bundle: true, platform: 'node', format: 'esm', outfile: entry, packages: 'external', logLevel: 'silent' });
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await fs.rm(work, { recursive: true, force: true });
  if (entry) await fs.rm(path.dirname(entry), { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  /** The URL it printed once ready (rejects if it exits first). */
  ready: Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function serve(stateDir: string): Run {
  const child = spawn(process.execPath, [entry, '--port', '0', '--state-dir', stateDir], {
    env: { ...process.env, SATCHEL_STT_PRELOAD: '0', SATCHEL_WEBUI_TOKEN: '', SATCHEL_LOG_LEVEL: 'warn', SATCHEL_WEBUI_DEFAULT_WORKSPACE: work },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within ${START_DEADLINE_MS} ms:\n${stdout}${stderr}`)), START_DEADLINE_MS);
    child.stdout!.on('data', () => {
      const line = stdout.split('\n').find((l) => l.startsWith(READY_PREFIX));
      if (line) {
        clearTimeout(timer);
        resolve(line.slice(READY_PREFIX.length));
      }
    });
    void exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code ?? signal}) before it was ready:\n${stdout}${stderr}`));
    });
  });
  ready.catch(() => {});
  return { child, ready, exit };
}

it('a second server on the same state folder refuses, naming the first one, and exits 3; after a kill -9 of the first a new one starts', async () => {
  const stateDir = path.join(work, 'state');
  const first = serve(stateDir);
  const firstUrl = await first.ready;
  const origin = new URL(firstUrl).origin;
  const token = new URL(firstUrl).searchParams.get('token')!;
  const created = await fetch(`${origin}/api/session/new`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: '{}' });
  expect(created.status).toBe(200);

  const second = serve(stateDir);
  const refused = await second.exit;
  expect(refused.code).toBe(EXIT_ALREADY_RUNNING);
  expect(refused.stdout).toBe('');
  expect(refused.stderr).toBe(`Satchel is already running on this state folder (${stateDir}): ${origin}/\n`);
  // The first one serves on as before.
  expect((await fetch(`${origin}/api/sessions`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);

  first.child.kill('SIGKILL');
  expect((await first.exit).signal).toBe('SIGKILL');
  const third = serve(stateDir);
  const thirdUrl = await third.ready;
  const res = await fetch(`${new URL(thirdUrl).origin}/api/sessions`, { headers: { Authorization: `Bearer ${new URL(thirdUrl).searchParams.get('token')}` } });
  expect(((await res.json()) as { sessions: unknown[] }).sessions).toHaveLength(1);
  third.child.kill('SIGTERM');
  expect((await third.exit).code).toBe(0);
  // A clean stop leaves no address behind.
  expect((await fs.readdir(stateDir)).filter((n) => n.startsWith('instance.'))).toEqual(['instance.lock']);
}, 120_000);

it('without the lock (another writer on the database), a stale write over HTTP is a 409 with its sentence, never a 500, and asked again it keeps both', async () => {
  const srv = await startTestServer();
  const other = new SessionStore(srv.stateDir);
  try {
    const id = await srv.newSession();
    const send = (text: string) => srv.json('/api/session/message', { session_id: id, text });
    expect((await send('first')).status).toBe(200);
    await other.load();
    await other.addMessage(id, 'from elsewhere', []);

    const stale = await send('stale');
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({ error: SESSION_CHANGED_ELSEWHERE });
    const again = await send('stale');
    expect(again.status).toBe(200);
    const { session } = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: { messages: { content: string }[] } };
    expect(session.messages.map((m) => m.content)).toEqual(['first', 'from elsewhere', 'stale']);
  } finally {
    await other.close();
    await srv.stop();
  }
});
