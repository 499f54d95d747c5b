// A reply's shown text survives a crash (issue 33, finding 11): a real server child process, a fake upstream
// streaming slowly and then holding the connection, the reply followed as a browser does; then `kill -9` while it
// streams, and a new start on the same state folder. The conversation holds the question, the text that was
// shown as a partial reply, and the Interrupted marker; the partial is the same one a SIGTERM keeps.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../testing/compile.js';
import { chunk, contentChunk, startFakeAgent, tokens, type FakeAgent } from '../testing/fake-agent.js';
import { TEST_TOKEN } from '../testing/harness.js';
import { openSse } from '../testing/sse.js';
import { STREAMED_TEXT_BATCH_MS } from './streamed-batches.js';
import { INTERRUPTED } from './turn-texts.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const READY_TIMEOUT_MS = 30_000;
/** The reply: several lines (the live redactor lets a line go once it has ended), streamed word by word. */
const REPLY = 'The quarterly numbers are in.\nRevenue grew four percent over the last quarter.\nCosts stayed flat, so the margin improved.\n';
const TOKENS_PER_SECOND = 40;
/** The whole reply shown: 0.5 s at that pace, but the full suite's loaded CI machine once took over 20 s to pass
 *  its last two tokens on (session 18; 11 runs alone and beside busy loops passed); the deadline only bounds a hang. */
const SHOWN_DEADLINE_MS = 60_000;

let work: string;
let cli: string;
let agent: FakeAgent;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-stream-kill-'));
  // The server's command, bundled into the repository's .cache (so node_modules resolves from there).
  await fs.mkdir(path.join(REPO_ROOT, '.cache'), { recursive: true });
  const out = await fs.mkdtemp(path.join(REPO_ROOT, '.cache', 'stream-kill-'));
  cli = path.join(out, 'cli.mjs');
  await build({ entryPoints: [path.join(REPO_ROOT, 'server', 'cli.ts')], bundle: true, platform: 'node', format: 'esm', outfile: cli, packages: 'external', logLevel: 'silent' });
  agent = await startFakeAgent();
}, 60_000);

afterAll(async () => {
  await agent?.close();
  if (work) await fs.rm(work, { recursive: true, force: true });
  if (cli) await fs.rm(path.dirname(cli), { recursive: true, force: true });
});

interface Child {
  proc: ChildProcess;
  port: number;
  /** How it ended: a signal it did not handle (SIGKILL), or its exit code (0 after a clean stop on SIGTERM). */
  exited: Promise<NodeJS.Signals | number | null>;
}

/** `satchel-serve` on `stateDir`, talking to the fake agent; resolves once it printed its address. */
async function serve(stateDir: string): Promise<Child> {
  const home = path.join(work, 'home');
  const workspace = path.join(work, 'workspace');
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(workspace, { recursive: true });
  const proc = spawn(process.execPath, [cli, '--port', '0', '--host', '127.0.0.1', '--state-dir', stateDir], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      SATCHEL_WEBUI_TOKEN: TEST_TOKEN,
      SATCHEL_WEBUI_DEFAULT_WORKSPACE: workspace,
      SATCHEL_AGENT_BASE_URL: `${agent.baseUrl}/v1`,
      SATCHEL_AGENT_MODEL: 'fake-model',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => proc.on('exit', (code, signal) => resolve(signal ?? code)));
  let out = '';
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${err}`)), READY_TIMEOUT_MS);
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const found = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(Number(found[1]));
      }
    });
    void exited.then(() => reject(new Error(`the server exited: ${err}`)));
  });
  return { proc, port, exited };
}

/** One request on its own connection: a restarted server takes the port it remembered, where a pooled socket is dead. */
function api(child: Child, pathname: string, body?: unknown): Promise<Json> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: child.port, path: pathname, method: payload === undefined ? 'GET' : 'POST', agent: false, headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => {
          const json = JSON.parse(text) as Json;
          if (res.statusCode !== 200) reject(new Error(`${pathname}: ${res.statusCode} ${text}`));
          else resolve(json);
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Start a turn whose reply streams REPLY and then holds the connection open, follow it until the whole text is
 * shown, wait for it to be written (a few batch periods), and stop the server with `signal`. Returns what was shown.
 */
async function streamThenStop(child: Child, sessionId: string, signal: NodeJS.Signals): Promise<string> {
  agent.next({ frames: [chunk({ role: 'assistant', content: '' }), ...tokens(REPLY).map(contentChunk)], tokensPerSecond: TOKENS_PER_SECOND, end: 'stall' });
  const started = await api(child, '/api/chat/start', { session_id: sessionId, message: 'How did the quarter go?' });
  const stream = await openSse(child.port, `/api/chat/stream?stream_id=${started.stream_id as string}`);
  const shown = () => stream.frames().filter((f) => f.event === 'token').map((f) => (JSON.parse(f.data!) as { text: string }).text).join('');
  await stream.until(() => shown() === REPLY, SHOWN_DEADLINE_MS);
  // Still streaming (the upstream holds the connection): the text is only in the turn, and in what was written.
  await new Promise((r) => setTimeout(r, 4 * STREAMED_TEXT_BATCH_MS));
  const text = shown();
  stream.close();
  child.proc.kill(signal);
  expect(await child.exited).toBe(signal === 'SIGKILL' ? 'SIGKILL' : 0);
  return text;
}

describe('a streaming reply killed mid-way', () => {
  it('kill -9 keeps the text shown, stored as an interrupted partial reply as after SIGTERM', async () => {
    const stateDir = path.join(work, 'state');
    let child = await serve(stateDir);
    const killed = ((await api(child, '/api/session/new', {})).session as Json).session_id as string;
    const shownBeforeKill = await streamThenStop(child, killed, 'SIGKILL');
    expect(shownBeforeKill).toBe(REPLY);

    child = await serve(stateDir);
    const afterKill = ((await api(child, `/api/session?session_id=${killed}`)).session as Json).messages as Json[];
    expect(afterKill.map((m) => [m.role, m.content, m._partial ?? false])).toEqual([
      ['user', 'How did the quarter go?', false],
      ['assistant', REPLY, true],
      ['assistant', `**Interrupted:** ${INTERRUPTED}`, false],
    ]);
    expect(afterKill[2]!.error_type).toBe('interrupted');

    // The same reply stopped by SIGTERM: the same partial row, then the stop's marker.
    const stopped = ((await api(child, '/api/session/new', {})).session as Json).session_id as string;
    expect(await streamThenStop(child, stopped, 'SIGTERM')).toBe(REPLY);
    child = await serve(stateDir);
    const afterStop = ((await api(child, `/api/session?session_id=${stopped}`)).session as Json).messages as Json[];
    expect(afterStop.map((m) => [m.role, m.content, m._partial ?? false]).slice(0, 2)).toEqual(afterKill.map((m) => [m.role, m.content, m._partial ?? false]).slice(0, 2));
    expect(afterStop[2]!.error_type).toBe('cancelled');
    // The first conversation is as it was: recovered once, not twice.
    expect((((await api(child, `/api/session?session_id=${killed}`)).session as Json).messages as Json[]).length).toBe(3);
    child.proc.kill('SIGTERM');
    await child.exited;
  }, 4 * SHOWN_DEADLINE_MS);
});
