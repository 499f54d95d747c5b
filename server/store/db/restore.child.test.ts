// The way back from a damaged database, through real server processes (`npm run serve`'s entry, bundled):
// a database of an older schema is backed up (and the copy checked) before it is migrated; the file is then
// damaged; the next start says so and names the backup; "Restore from backup" (POST /api/database/restore)
// brings it back at once, keeping the damaged file aside; and the start after that is a healthy one.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../testing/compile.js';
import type { Session } from '../sessions.js';
import { SESSION_DB_FILE } from '../sessions.js';
import { BACKUP_DIR, SET_ASIDE_DIR } from './backup.js';
import { Db, type Queries } from './connection.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';

const TOKEN = 'restore-test-token-0123456789';
const START_DEADLINE_MS = 20_000;
/** The schema the older database is made at (one before this build's). */
const OLD_SCHEMA = SCHEMA_VERSION - 1;

let work: string;
let entry: string;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-restore-'));
  await fs.mkdir(path.join(REPO_ROOT, '.cache'), { recursive: true });
  const out = await fs.mkdtemp(path.join(REPO_ROOT, '.cache', 'restore-child-'));
  entry = path.join(out, 'cli.mjs');
  // Bundled into the repository's .cache so the packages (left outside the bundle) resolve from node_modules.
  await build({ entryPoints: [path.join(REPO_ROOT, 'server', 'cli.ts')], bundle: true, platform: 'node', format: 'esm', outfile: entry, packages: 'external', logLevel: 'silent' });
}, 60_000);

afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
  if (entry) await fs.rm(path.dirname(entry), { recursive: true, force: true });
});

interface Child {
  origin: string;
  api(pathname: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
  output(): string;
}

async function startChild(stateDir: string): Promise<Child> {
  const proc: ChildProcess = spawn(process.execPath, [entry, '--state-dir', stateDir, '--port', '0', '--host', '127.0.0.1'], {
    env: { ...process.env, SATCHEL_WEBUI_TOKEN: TOKEN, SATCHEL_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const deadline = Date.now() + START_DEADLINE_MS;
  let origin: string | undefined;
  while (!origin) {
    origin = /Satchel is running at (http:\/\/[^/\s]+)\//.exec(out)?.[1];
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = origin;
  return {
    origin: base,
    api: (pathname, init = {}) =>
      fetch(base + pathname, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...(init.headers as Record<string, string> | undefined) }, signal: AbortSignal.timeout(15_000) }),
    async stop() {
      proc.kill('SIGTERM');
      await exited;
    },
    output: () => out,
  };
}

function oldConversation(i: number): Session {
  const id = `00000000000${i}`;
  const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
  return {
    session_id: id,
    title: `Before the upgrade ${i}`,
    workspace: work,
    profile: 'default',
    created_at: at,
    updated_at: at,
    messages: [{ role: 'user', content: `question ${i}`, timestamp: 1_767_225_600 + i }],
    attachments: [],
  };
}

/** A conversation as the schema before stored it (until schema 8 a message's index row held a copy of its text). */
async function writeOldSession(q: Queries, s: Session): Promise<void> {
  const { messages, attachments: _attachments, ...header } = s;
  await q.run('INSERT INTO sessions (id, updated_at, message_count, attachment_count, header) VALUES (?, ?, ?, 0, ?)', [s.session_id, s.updated_at, messages.length, JSON.stringify(header)]);
  await q.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'title', 0, ?)`, [s.session_id, s.title]);
  for (const [i, m] of messages.entries()) {
    await q.run('INSERT INTO messages (session_id, position, row) VALUES (?, ?, ?)', [s.session_id, i, JSON.stringify(m)]);
    await q.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'message', ?, ?)`, [s.session_id, i, m.content]);
  }
}

const titles = async (child: Child): Promise<string[]> =>
  (((await (await child.api('/api/sessions')).json()) as { sessions: { title: string }[] }).sessions.map((s) => s.title)).sort();

it('backs up an older database before migrating it, and a restore brings that backup back after the file is damaged', async () => {
  const stateDir = path.join(work, 'state');
  const file = path.join(stateDir, SESSION_DB_FILE);
  await fs.mkdir(stateDir, { mode: 0o700 });
  const old = await Db.open(file);
  await migrateSchema(old, OLD_SCHEMA);
  for (let i = 1; i <= 3; i++) await old.transaction((q) => writeOldSession(q, oldConversation(i)));
  await old.close();

  // 1. The first start of this build: a checked backup of the older database, then the migration.
  let child = await startChild(stateDir);
  const names = await fs.readdir(path.join(stateDir, BACKUP_DIR));
  expect(names).toEqual([expect.stringMatching(new RegExp(`^satchel-\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z-before-schema-${OLD_SCHEMA}\\.db$`))]);
  const state1 = (await (await child.api('/api/database')).json()) as { state: string; backups: { name: string; created_at: string; reason: string }[] };
  expect(state1.state).toBe('ok');
  expect(state1.backups.map((b) => [b.name, b.reason])).toEqual([[names[0], `before-schema-${OLD_SCHEMA}`]]);
  expect(await titles(child)).toEqual(['Before the upgrade 1', 'Before the upgrade 2', 'Before the upgrade 3']);
  expect((await child.api('/api/session/new', { method: 'POST', body: '{}' })).status).toBe(200);
  await child.stop();
  // The backup is the database as it was before the migration.
  const backup = await Db.openReadOnly(path.join(stateDir, BACKUP_DIR, names[0]!));
  expect((await backup.get<{ version: number }>('SELECT version FROM schema_version'))!.version).toBe(OLD_SCHEMA);
  expect((await backup.get<{ n: number }>('SELECT count(*) AS n FROM sessions'))!.n).toBe(3);
  await backup.close();

  // 2. The file damaged: its header zeroed.
  const handle = await fs.open(file, 'r+');
  await handle.write(Buffer.alloc(100), 0, 100, 0);
  await handle.close();
  const damaged = await fs.readFile(file);

  // 3. The next start says so, names the backup, and restores it at once.
  child = await startChild(stateDir);
  const state2 = (await (await child.api('/api/database')).json()) as { state: string; message: string; backups: { name: string; created_at: string }[] };
  expect(state2.state).toBe('damaged');
  expect(state2.message).toBe(
    `Satchel's conversation database ${file} is damaged (it does not begin as an SQLite database does: its first bytes were overwritten); it is left exactly as it was and nothing more is written to it: open Settings → Backups and restore the backup of ${state2.backups[0]!.created_at} (the damaged file is kept aside), or export what can still be read first.`,
  );
  expect(child.output()).toContain(state2.message);
  expect(await titles(child)).toEqual([]);
  const restored = await child.api('/api/database/restore', { method: 'POST', body: JSON.stringify({ backup: names[0] }) });
  expect(restored.status).toBe(200);
  const answer = (await restored.json()) as { state: string; restored: { name: string }; set_aside: string };
  expect(answer.state).toBe('ok');
  expect(answer.restored.name).toBe(names[0]);
  expect(path.dirname(answer.set_aside)).toBe(path.join(stateDir, SET_ASIDE_DIR));
  expect((await fs.readFile(path.join(answer.set_aside, SESSION_DB_FILE))).equals(damaged)).toBe(true);
  expect(await titles(child)).toEqual(['Before the upgrade 1', 'Before the upgrade 2', 'Before the upgrade 3']);
  expect((await child.api('/api/session/new', { method: 'POST', body: '{}' })).status).toBe(200);
  await child.stop();

  // 4. A healthy start: the restored conversations and the one written after the restore.
  child = await startChild(stateDir);
  expect(((await (await child.api('/api/database')).json()) as { state: string }).state).toBe('ok');
  expect(await titles(child)).toEqual(['Before the upgrade 1', 'Before the upgrade 2', 'Before the upgrade 3', 'Untitled']);
  await child.stop();
}, 120_000);

it('refuses to restore a name that is not a listed backup', async () => {
  const stateDir = path.join(work, 'state-names');
  const child = await startChild(stateDir);
  try {
    for (const backup of ['../satchel.db', '/etc/passwd', 'satchel-2026-01-01T00-00-00-000Z-daily.db', 42]) {
      const res = await child.api('/api/database/restore', { method: 'POST', body: JSON.stringify({ backup }) });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'No such backup: choose one of those listed in Settings → Backups' });
    }
  } finally {
    await child.stop();
  }
}, 60_000);
