// The session, profile and workspace routes over a real socket.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { storedJson } from '../testing/stored-session.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.stop();
});

describe('sessions, profiles, workspaces', () => {
  it('creates, reads, renames and lists sessions', async () => {
    const res = await srv.json('/api/session/new', {});
    const { session } = (await res.json()) as { session: Record<string, unknown> };
    expect(session.session_id).toMatch(/^[0-9a-f]{12}$/);
    expect(session).toMatchObject({ title: 'Untitled', messages: [], profile: 'default', workspace: await fs.realpath(srv.workspace) });
    const renamed = await srv.json('/api/session/rename', { session_id: session.session_id, title: 'Trip plan' });
    expect(((await renamed.json()) as { session: { title: string } }).session.title).toBe('Trip plan');
    const list = (await (await srv.api('/api/sessions')).json()) as { sessions: { session_id: string; title: string }[] };
    expect(list.sessions.find((s) => s.session_id === session.session_id)?.title).toBe('Trip plan');
    const stored = await storedJson(srv.stateDir, session.session_id as string);
    expect(stored.title).toBe('Trip plan');
  });

  it('reports missing fields with the exact text', async () => {
    const res = await srv.json('/api/session/rename', { session_id: '' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Missing required field(s): session_id, title' });
  });

  it.each([[[]], [{}], [null], [false]])('counts a title of %j as missing, as Python would', async (title) => {
    const res = await srv.json('/api/session/rename', { session_id: 'x', title });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Missing required field(s): title' });
  });

  it('hides sessions of another profile', async () => {
    const id = await srv.newSession({ profile: 'work' });
    const asDefault = await srv.api(`/api/session?session_id=${id}`);
    expect(asDefault.status).toBe(404);
    expect(await asDefault.json()).toEqual({ error: 'Session not found' });
    const asWork = await srv.api(`/api/session?session_id=${id}`, { headers: { Cookie: 'satchel_profile=work' } });
    expect(asWork.status).toBe(200);
    const sw = await srv.json('/api/profile/switch', { name: 'work' });
    expect(sw.headers.get('set-cookie')).toBe('satchel_profile=work; Path=/; SameSite=Strict');
    expect((await srv.json('/api/profile/switch', { name: 'Bad Name' })).status).toBe(400);
  });

  it('accepts only trusted, existing, non-system workspaces', async () => {
    for (const [workspace, error] of [
      ['/etc', 'Workspace cannot be a system directory'],
      ['relative/dir', 'Workspace must be an absolute path'],
      [path.join(srv.tmp, 'missing'), 'Workspace does not exist'],
    ]) {
      const res = await srv.json('/api/session/new', { workspace });
      expect(res.status, workspace).toBe(400);
      expect(await res.json()).toEqual({ error: error });
    }
    const outside = await fs.mkdtemp('/var/tmp/satchel-outside-');
    try {
      const refused = await srv.json('/api/session/new', { workspace: outside });
      expect(await refused.json()).toEqual({ error: 'Workspace is not in a trusted folder; add it first' });
      expect((await srv.json('/api/workspaces/add', { path: outside })).status).toBe(200);
      expect((await srv.json('/api/session/new', { workspace: outside })).status).toBe(200);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });
});
