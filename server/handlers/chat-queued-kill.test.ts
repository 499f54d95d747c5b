// Issue 34: a message answered 200 while a reply streams is never lost. Satchel (a real child process) is killed
// with SIGKILL mid-reply after a note and a quick capture were stored; the next start stores the interrupted turn
// (the person's message and the "Interrupted" row), then the notes, in the order written.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chunk, contentChunk, startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { REPO_ROOT } from '../testing/compile.js';
import { startTestServer, TEST_TOKEN } from '../testing/harness.js';
import { openSse } from '../testing/sse.js';
import { INTERRUPTED } from '../agent/turn-texts.js';

const KEY = 'agent-key-0123456789abcdef';
/** The child's start (a bundle of the server, the database opened): well under this on the loaded machine. */
const CHILD_START_MS = 30_000;
let work: string;
let child: string;
let agent: FakeAgent;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-queued-kill-'));
  agent = await startFakeAgent({ apiKey: KEY });
  await fs.mkdir(path.join(REPO_ROOT, '.cache'), { recursive: true });
  const out = await fs.mkdtemp(path.join(REPO_ROOT, '.cache', 'serve-child-'));
  child = path.join(out, 'serve-child.mjs');
  // Packages stay outside the bundle: resolved from the repository's node_modules, as the server resolves them.
  await build({ entryPoints: [path.join(REPO_ROOT, 'server', 'testing', 'serve-child.ts')], bundle: true, platform: 'node', format: 'esm', outfile: child, packages: 'external', logLevel: 'silent' });
}, 60_000);
afterAll(async () => {
  await agent.close();
  await fs.rm(work, { recursive: true, force: true });
  await fs.rm(path.dirname(child), { recursive: true, force: true });
});

function startChild(stateDir: string): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(process.execPath, [child, stateDir, work], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the child did not start: ${out}`)), CHILD_START_MS);
    proc.stdout!.setEncoding('utf8').on('data', (piece: string) => {
      out += piece;
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, port: Number(m[1]) });
      }
    });
    proc.on('exit', (code) => reject(new Error(`the child exited (${code}): ${out}`)));
  });
}

it('SIGKILL mid-reply: the notes answered 200 are stored after the interrupted turn, in order', async () => {
  const stateDir = path.join(work, 'state');
  const { proc, port } = await startChild(stateDir);
  const call = async (pathname: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${pathname}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  try {
    expect((await call('/api/agent/settings', { base_url: agent.baseUrl, api_key: KEY, model: 'fake-model', kind: 'openai' })).status).toBe(200);
    const id = (await call('/api/session/new', {})).json.session.session_id as string;
    agent.next({ frames: [chunk({ role: 'assistant', content: '' }), contentChunk('Figs grow ')], end: 'stall' });
    const started = await call('/api/chat/start', { session_id: id, message: 'm1: tell me about figs' });
    expect(started.status).toBe(200);
    const stream = await openSse(port, `/api/chat/stream?stream_id=${started.json.stream_id}`, { Authorization: `Bearer ${TEST_TOKEN}` });
    await stream.until((f) => f.event === 'token');
    expect((await call('/api/session/message', { session_id: id, text: 'm2: a note' })).status).toBe(200);
    expect((await call('/api/capture/send', { destination: 'current', session_id: id, text: 'm2b: captured' })).status).toBe(200);
    proc.kill('SIGKILL');
    await new Promise((resolve) => proc.once('exit', resolve));

    const again = await startTestServer({ stateDir });
    try {
      const { session } = (await (await again.api(`/api/session?session_id=${id}`)).json()) as { session: { messages: { role: string; content: string }[]; queued_messages?: unknown } };
      expect(session.messages.map((m) => [m.role, m.content])).toEqual([
        ['user', 'm1: tell me about figs'],
        ['assistant', `**Interrupted:** ${INTERRUPTED}`],
        ['user', 'm2: a note'],
        ['user', 'm2b: captured'],
      ]);
      expect(session.queued_messages).toBeUndefined();
    } finally {
      await again.stop();
    }
  } finally {
    proc.kill('SIGKILL');
  }
}, 90_000);
