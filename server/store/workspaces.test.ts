import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValueError } from '../core/errors.js';
import { startTestServer } from '../testing/harness.js';
import {
  CREDENTIAL_WORKSPACE,
  DEFAULT_WORKSPACE_MODE,
  isCredentialDir,
  isSystemDir,
  SHARED_PARENT_WORKSPACE,
  SHARED_WORKSPACE,
  sharedWriteProblem,
  Workspaces,
} from './workspaces.js';

describe('isSystemDir (POSIX)', () => {
  const home = '/home/ana';
  it.each([
    ['/', true],
    ['/etc', true],
    ['/etc/ssh', true],
    ['/usr/bin', true],
    ['/usr/local/share/x', true],
    ['/var', true],
    ['/var/lib/docker', true],
    ['/System/Library', true],
    ['/home', true],
    ['/tmp', true],
    ['/opt', true],
    ['/opt/projects/site', false],
    ['/srv/www/app', false],
    ['/tmp/scratch', false],
    ['/var/tmp/build', false],
    ['/home/ana', false],
    ['/home/ana/code/satchel', false],
    ['/home/bob/code', false],
    ['/etcetera/x', false],
  ])('%s → %s', (dir, expected) => {
    expect(isSystemDir(dir, home, 'linux')).toBe(expected);
  });

  it('never treats the user’s own home as system, even when it is /root', () => {
    expect(isSystemDir('/root', '/root', 'linux')).toBe(false);
    expect(isSystemDir('/root/projects', '/root', 'linux')).toBe(false);
    expect(isSystemDir('/root', '/home/ana', 'linux')).toBe(true);
  });
});

describe('isCredentialDir', () => {
  it.each([
    ['/home/ana/.ssh', true],
    ['/home/ana/.ssh/keys', true],
    ['/home/ana/.GnuPG', true],
    ['/home/ana/.aws', true],
    ['/home/ana/.config/gcloud', true],
    ['/home/ana/.config/gh/hosts', true],
    ['/home/ana/.docker', true],
    ['/home/ana/.password-store/work', true],
    ['/home/ana/code/../.kube', true],
    ['/home/ana', false],
    ['/home/ana/.config', false],
    ['/home/ana/.config/satchel/workspace', false],
    ['/home/ana/code/ssh', false],
    ['/home/ana/.sshd', false],
  ])('%s → %s', (dir, expected) => {
    expect(isCredentialDir(dir)).toBe(expected);
  });
});

describe('sharedWriteProblem (modes given)', () => {
  const ME = { uid: 1000, gid: 1000 };
  const SHARED_GROUP = 100;
  // Folders not named in `groups`/`owners` belong to root (system folders) or, under /home/ana and /tmp, to us,
  // with a shared group: group-write on them is someone else's write.
  const groups: Record<string, number> = { '/home/ana/upg': ME.gid, '/home/ana/upg/proj': ME.gid };
  const owners: Record<string, number> = { '/srv/bob': 1001, '/srv/bob/proj': ME.uid };
  const modes = (table: Record<string, number>) => async (p: string) => {
    const mode = table[p];
    if (mode === undefined) throw new Error(`no mode for ${p}`);
    const uid = owners[p] ?? (p.startsWith('/home/ana') || p.startsWith('/tmp/') ? ME.uid : 0);
    return { mode: 0o040000 | mode, uid, gid: groups[p] ?? SHARED_GROUP };
  };
  const base = { '/': 0o755, '/tmp': 0o1777, '/var': 0o755, '/var/tmp': 0o1777, '/srv': 0o755, '/home': 0o755, '/home/ana': 0o700 };
  it.each([
    ['/tmp', SHARED_WORKSPACE],
    ['/var/tmp', SHARED_WORKSPACE],
    ['/tmp/mine', null],
    ['/tmp/open', SHARED_WORKSPACE],
    ['/tmp/group', SHARED_WORKSPACE],
    ['/srv/shared', SHARED_WORKSPACE],
    ['/srv/shared/proj', SHARED_PARENT_WORKSPACE],
    ['/srv/sticky/proj', null],
    ['/home/ana', null],
    ['/home/ana/code', null],
    ['/home/ana/team/proj', SHARED_PARENT_WORKSPACE],
    // umask 002 with a user private group: group-writable, but the group is only us.
    ['/home/ana/upg', null],
    ['/home/ana/upg/proj', null],
    // Another user's folder, and ours inside it: its owner can rename ours away.
    ['/srv/bob', SHARED_WORKSPACE],
    ['/srv/bob/proj', SHARED_PARENT_WORKSPACE],
  ])('%s → %s', async (dir, expected) => {
    const stat = modes({
      ...base,
      '/tmp/mine': 0o700,
      '/tmp/open': 0o777,
      '/tmp/group': 0o770,
      '/srv/shared': 0o777,
      '/srv/shared/proj': 0o755,
      '/srv/sticky': 0o1777,
      '/srv/sticky/proj': 0o755,
      '/home/ana/code': 0o755,
      '/home/ana/team': 0o775,
      '/home/ana/team/proj': 0o755,
      '/home/ana/upg': 0o775,
      '/home/ana/upg/proj': 0o775,
      '/srv/bob': 0o755,
      '/srv/bob/proj': 0o700,
    });
    expect(await sharedWriteProblem(dir, 'linux', stat, ME)).toBe(expected);
  });

  it('checks no mode bits on Windows (ACLs decide there)', async () => {
    expect(await sharedWriteProblem('C:\\Users\\Public', 'win32', async () => ({ mode: 0o777 }))).toBeNull();
  });
});

describe('Workspaces on disk', () => {
  let tmp: string;
  let home: string;
  let state: string;
  let ws: Workspaces;
  beforeEach(async () => {
    // mkdtemp makes a private (0700) folder inside /tmp: the shape every test workspace has.
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-ws-'));
    home = path.join(tmp, 'home');
    state = path.join(tmp, 'state');
    await fsp.mkdir(home, { mode: 0o700 });
    await fsp.mkdir(state, { mode: 0o700 });
    ws = new Workspaces(state, undefined, home);
    await ws.load();
  });
  afterEach(async () => {
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  const refused = async (p: Promise<unknown>, text: string) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValueError);
    expect((err as Error).message).toBe(text);
  };
  const mkdir = async (rel: string, mode: number) => {
    const dir = path.join(home, rel);
    await fsp.mkdir(dir, { recursive: true });
    await fsp.chmod(dir, mode);
    return dir;
  };

  it.each([['.ssh'], ['.ssh/inner'], ['.gnupg'], ['.aws'], ['.config/gh'], ['.config/gcloud/legacy'], ['.AWS']])('refuses the credential folder ~/%s', async (rel) => {
    const dir = await mkdir(rel, 0o700);
    await refused(ws.validate(dir), CREDENTIAL_WORKSPACE);
    await refused(ws.add(dir), CREDENTIAL_WORKSPACE);
  });

  it('refuses a symlink that leads into a credential folder', async () => {
    const target = await mkdir('.ssh', 0o700);
    const link = path.join(home, 'innocent');
    await fsp.symlink(target, link);
    await refused(ws.validate(link), CREDENTIAL_WORKSPACE);
    await refused(ws.add(link), CREDENTIAL_WORKSPACE);
  });

  it('accepts the home itself and ordinary (also hidden) folders in it', async () => {
    expect(await ws.validate(home)).toBe(await fsp.realpath(home));
    const code = await mkdir('code/site', 0o755);
    expect(await ws.validate(code)).toBe(await fsp.realpath(code));
    const dotConfig = await mkdir('.config/satchel', 0o700);
    expect(await ws.validate(dotConfig)).toBe(await fsp.realpath(dotConfig));
  });

  // A group other than our own primary group: its members could write.
  const OTHER_GID = (process.getgid?.() ?? 0) === 100 ? 101 : 100;

  it.each([[0o777], [0o775], [0o757], [0o1777], [0o770]])('refuses a folder with mode %s shared with another group', async (mode) => {
    const dir = await mkdir(`open-${mode.toString(8)}`, mode);
    await fsp.chown(dir, process.getuid?.() ?? 0, OTHER_GID).catch(() => {});
    await refused(ws.validate(dir), SHARED_WORKSPACE);
    await refused(ws.add(dir), SHARED_WORKSPACE);
  });

  it('accepts a group-writable folder whose group is our own (umask 002, user private groups)', async () => {
    const dir = await mkdir('upg', 0o775);
    await fsp.chown(dir, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
    expect(await ws.validate(dir)).toBe(await fsp.realpath(dir));
  });

  it('refuses a private folder inside one others can write to without the sticky bit', async () => {
    await mkdir('shared', 0o777);
    const dir = await mkdir('shared/mine', 0o700);
    await refused(ws.validate(dir), SHARED_PARENT_WORKSPACE);
    await refused(ws.add(dir), SHARED_PARENT_WORKSPACE);
  });

  it('accepts a private folder inside a sticky shared one (as /tmp is)', async () => {
    await mkdir('sticky', 0o1777);
    const dir = await mkdir('sticky/mine', 0o700);
    expect(await ws.validate(dir)).toBe(await fsp.realpath(dir));
  });

  it('accepts a private folder made inside /tmp, by add and then by validate', async () => {
    const mine = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-private-'));
    try {
      expect(fs.statSync(mine).mode & 0o777).toBe(0o700);
      await refused(ws.validate(mine), 'Workspace is not in a trusted folder; add it first');
      expect(await ws.add(mine)).toContain(await fsp.realpath(mine));
      expect(await ws.validate(mine)).toBe(await fsp.realpath(mine));
    } finally {
      await fsp.rm(mine, { recursive: true, force: true });
    }
  });

  const SYSTEM = 'A system directory cannot be a workspace';
  for (const [dir, text] of [
    ['/tmp', SYSTEM],
    ['/var/tmp', SHARED_WORKSPACE],
    ['/run/lock', SHARED_WORKSPACE],
    ['/dev/shm', SYSTEM],
  ] as const) {
    // These exist, world-writable and sticky, on Debian; a machine without one has nothing to test.
    const shared = fs.existsSync(dir) && (fs.statSync(dir).mode & 0o1002) === 0o1002;
    if (!shared) console.log(`workspaces.test: skipping the shared folder ${dir}: not a world-writable sticky folder on this machine`);
    it.skipIf(!shared)(`refuses the shared folder ${dir} (${text})`, async () => {
      await refused(ws.add(dir), text);
      await refused(ws.validate(dir), text === SYSTEM ? 'Workspace cannot be a system directory' : text);
    });
  }

  it('creates its own default workspace on first use, private', async () => {
    const own = path.join(state, 'workspace');
    expect(ws.fallbackWorkspace).toBe(own);
    expect(fs.existsSync(own)).toBe(false);
    expect(await ws.validate(own)).toBe(await fsp.realpath(own));
    expect(fs.statSync(own).mode & 0o777).toBe(DEFAULT_WORKSPACE_MODE);
  });

  it('does not create a configured default that is missing', async () => {
    const configured = path.join(tmp, 'configured');
    const other = new Workspaces(state, configured, home);
    await other.load();
    expect(other.fallbackWorkspace).toBe(configured);
    await refused(other.validate(configured), 'Workspace does not exist');
  });
});

describe('workspaces over HTTP', () => {
  it('GET /api/workspaces names the default; unsafe folders are 400 with the exact text', async () => {
    const srv = await startTestServer();
    try {
      const res = await srv.api('/api/workspaces');
      const body = (await res.json()) as { workspaces: string[]; default: string };
      expect(body.default).toBe(srv.workspace);
      expect(body.workspaces).toContain(srv.workspace);

      const ssh = path.join(srv.workspace, '.ssh');
      await fsp.mkdir(ssh, { mode: 0o700 });
      const open = path.join(srv.workspace, 'open');
      await fsp.mkdir(open);
      await fsp.chmod(open, 0o777);
      for (const [dir, text] of [
        [ssh, CREDENTIAL_WORKSPACE],
        [open, SHARED_WORKSPACE],
      ] as const) {
        const added = await srv.json('/api/workspaces/add', { path: dir });
        expect(added.status, dir).toBe(400);
        expect(await added.json()).toEqual({ error: text });
        const created = await srv.json('/api/session/new', { workspace: dir });
        expect(created.status, dir).toBe(400);
        expect(await created.json()).toEqual({ error: text });
      }
    } finally {
      await srv.stop();
    }
  });

  it('without a configured default, a new session works in <state>/workspace, made private on first use', async () => {
    const srv = await startTestServer({ defaultWorkspace: undefined });
    try {
      const own = path.join(srv.stateDir, 'workspace');
      const listed = (await (await srv.api('/api/workspaces')).json()) as { default: string };
      expect(listed.default).toBe(own);
      const res = await srv.json('/api/session/new', {});
      expect(res.status).toBe(200);
      expect(((await res.json()) as { session: { workspace: string } }).session.workspace).toBe(own);
      expect(fs.statSync(own).mode & 0o777).toBe(DEFAULT_WORKSPACE_MODE);
    } finally {
      await srv.stop();
    }
  });
});
