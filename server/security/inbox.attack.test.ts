// Watched Inbox folders as a way in: a symlink dropped into a watched folder that points at ~/.ssh (the folder,
// or a key in it) is never followed, so the key never reaches a conversation, the disk under Satchel's state
// folder or a log line; a credential folder, Satchel's own state folder, a symlinked or a shared folder cannot
// be watched at all.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setLogSink } from '../core/log.js';
import { WATCH_CREDENTIAL, WATCH_PROTECTED } from '../inbox/folders.js';
import { startTestServer, type TestServer } from '../testing/harness.js';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ INBOXSECRETKEY\n-----END OPENSSH PRIVATE KEY-----\n';
const MARK = 'INBOXSECRETKEY';
const FAST = { settleMs: 150, pollMs: 40, rescanMs: 200 };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) out.push(path.join(e.parentPath, e.name));
  return out;
}

describe('Inbox folders (attack)', () => {
  it('never reads a symlink dropped into a watched folder that points at ~/.ssh', async () => {
    const lines: string[] = [];
    const restore = setLogSink((line) => lines.push(line));
    try {
      const s = await startTestServer({ inbox: FAST });
      server = s;
      const ssh = path.join(s.tmp, 'home', '.ssh');
      await fs.mkdir(ssh, { recursive: true, mode: 0o700 });
      await fs.writeFile(path.join(ssh, 'id_ed25519'), KEY, { mode: 0o600 });
      const dir = path.join(s.tmp, 'Downloads');
      await fs.mkdir(dir);
      expect((await s.json('/api/inbox/folders', { add: dir })).status).toBe(200);
      await fs.symlink(path.join(ssh, 'id_ed25519'), path.join(dir, 'id_ed25519'));
      await fs.symlink(ssh, path.join(dir, 'ssh'));
      await fs.symlink(path.join(ssh, 'id_ed25519'), path.join(dir, 'notes.txt'));
      // A real file after them: once it is in, the links have been looked at (and passed over) long since.
      await new Promise((r) => setTimeout(r, FAST.settleMs * 4));
      await fs.writeFile(path.join(dir, 'real.txt'), 'a real file');
      const deadline = Date.now() + 10_000;
      let body: { counts: { arrived: number; symlink: number } };
      for (;;) {
        body = (await (await s.api('/api/inbox/folders')).json()) as typeof body;
        if (body.counts.arrived >= 1 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const sessions = (await (await s.api('/api/sessions')).json()) as { sessions: { session_id: string }[] };
      const session = (await (await s.api(`/api/session?session_id=${sessions.sessions[0]!.session_id}`)).json()) as { session: { attachments: { filename: string }[] } };
      expect(session.session.attachments.map((a) => a.filename)).toEqual(['real.txt']);
      for (const file of await filesUnder(s.stateDir)) {
        expect((await fs.readFile(file)).includes(MARK), file).toBe(false);
      }
      expect(lines.filter((l) => l.includes(MARK))).toEqual([]);
      expect(body.counts.arrived).toBe(1);
      // All three links were seen and passed over as links.
      expect(body.counts.symlink).toBeGreaterThanOrEqual(3);
    } finally {
      restore();
    }
  });

  it('refuses to watch a credential folder or Satchel\'s own state folder', async () => {
    const s = await startTestServer({ inbox: FAST });
    server = s;
    const ssh = path.join(s.tmp, 'home', '.ssh');
    await fs.mkdir(ssh, { recursive: true, mode: 0o700 });
    const a = await s.json('/api/inbox/folders', { add: ssh });
    expect(a.status).toBe(400);
    expect(((await a.json()) as { error: string }).error).toBe(WATCH_CREDENTIAL);
    const b = await s.json('/api/inbox/folders', { add: s.stateDir });
    expect(b.status).toBe(400);
    expect(((await b.json()) as { error: string }).error).toBe(WATCH_PROTECTED);
  });
});
