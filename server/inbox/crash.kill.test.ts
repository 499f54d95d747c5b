// A crash right after an Inbox arrival (issue 33, finding 11): a real server in a child process watches a folder,
// a file arrives, and the child is killed with SIGKILL the moment the arrival is counted. The next start must
// hold the file exactly once (not again as `name-1.ext`) and its arrival row. Before, the record of what was
// taken (inbox.json) and the row were written up to 500 ms after the file: 4 of 4 crashes took it twice.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer } from '../index.js';
import { REPO_ROOT } from '../testing/compile.js';
import { TEST_TOKEN } from '../testing/harness.js';
import { INBOX_TITLE } from './session.js';

const ROUNDS = 4;
const CHILD_DEADLINE_MS = 20_000;
const FAST = { settleMs: 200, pollMs: 50, rescanMs: 300 };

let work: string;
let child: string;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-inbox-crash-'));
  // Bundled into the repository's .cache, so its packages (sqlite3's binding) resolve from node_modules.
  await fs.mkdir(path.join(REPO_ROOT, '.cache'), { recursive: true });
  const out = await fs.mkdtemp(path.join(REPO_ROOT, '.cache', 'inbox-crash-'));
  child = path.join(out, 'crash-child.mjs');
  await build({
    entryPoints: [path.join(REPO_ROOT, 'server', 'inbox', 'testing', 'crash-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: child,
    packages: 'external',
    logLevel: 'silent',
  });
}, 60_000);

afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
  if (child) await fs.rm(path.dirname(child), { recursive: true, force: true });
});

const auth = { Authorization: `Bearer ${TEST_TOKEN}` };

function startChild(stateDir: string, workspace: string): { origin: Promise<string>; proc: ChildProcess; exited: Promise<NodeJS.Signals | null> } {
  const proc = spawn(process.execPath, [child, stateDir, workspace, TEST_TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const timer = setTimeout(() => proc.kill('SIGKILL'), CHILD_DEADLINE_MS);
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    proc.on('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve(signal);
    }),
  );
  const origin = new Promise<string>((resolve, reject) => {
    proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const m = /url (\S+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`the child ended before listening: ${out}`)));
  });
  return { origin, proc, exited };
}

it(`killed (SIGKILL) right after an arrival, ${ROUNDS} times: each file is stored once, with its arrival row`, async () => {
  const results: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const base = path.join(work, `round-${round}`);
    const stateDir = path.join(base, 'state');
    const workspace = path.join(base, 'workspace');
    const folder = path.join(base, 'Downloads');
    await fs.mkdir(workspace, { recursive: true });
    await fs.mkdir(folder);
    const run = startChild(stateDir, workspace);
    const origin = await run.origin;
    const add = await fetch(`${origin}/api/inbox/folders`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ add: folder }) });
    expect(add.status).toBe(200);
    // The folder is recorded as watched (inbox.json) before anything arrives, as it is long before a real crash.
    await new Promise((r) => setTimeout(r, 300));
    await fs.writeFile(path.join(folder, `report-${round}.txt`), `quarterly numbers ${round}`);
    for (;;) {
      const body = (await (await fetch(`${origin}/api/inbox/folders`, { headers: auth })).json()) as { counts: { arrived: number } };
      if (body.counts.arrived >= 1) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    run.proc.kill('SIGKILL');
    expect(await run.exited).toBe('SIGKILL');

    const again = await startServer({ host: '127.0.0.1', port: 0, stateDir, token: TEST_TOKEN, defaultWorkspace: workspace, maxUploadBytes: 1024 * 1024 }, { inbox: FAST });
    try {
      // Time for the folder to be scanned and a file taken again several times over.
      await new Promise((r) => setTimeout(r, FAST.settleMs * 4 + FAST.rescanMs * 3));
      const list = (await (await fetch(`${again.origin}/api/sessions`, { headers: auth })).json()) as { sessions: { session_id: string; title: string }[] };
      const inbox = list.sessions.filter((s) => s.title === INBOX_TITLE);
      expect(inbox).toHaveLength(1);
      const { session } = (await (await fetch(`${again.origin}/api/session?session_id=${inbox[0]!.session_id}`, { headers: auth })).json()) as {
        session: { attachments: { filename: string; path: string }[]; messages: { role: string; content: string; attachments?: { filename: string }[] }[] };
      };
      results.push(`${session.attachments.map((a) => a.filename).join(',')} | ${session.messages.length} row(s)`);
      expect(session.attachments.map((a) => a.filename)).toEqual([`report-${round}.txt`]);
      expect(await fs.readFile(session.attachments[0]!.path, 'utf8')).toBe(`quarterly numbers ${round}`);
      expect(session.messages.map((m) => [m.role, m.content, m.attachments?.map((a) => a.filename)])).toEqual([
        ['system', `report-${round}.txt arrived from Downloads`, [`report-${round}.txt`]],
      ]);
    } finally {
      await again.close();
      console.log(`inbox crash round ${round}: ${results.at(-1)}`);
    }
  }
}, 120_000);
