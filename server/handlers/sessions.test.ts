// The session, profile and workspace routes over a real socket.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { forgetSecrets, KNOWN_SECRET_MASK, rememberSecret } from '../redact/known.js';
import { publicSessionSummary } from '../projections/sessions.js';
import { type TestServer } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { storedJson } from '../testing/stored-session.js';

const srv = testServerForFile();

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

  it('answers a stored message with the summary and the message alone when asked, and the whole session by default', async () => {
    const id = await srv.newSession();
    const whole = (await (await srv.json('/api/session/message', { session_id: id, text: 'first' })).json()) as { session: { messages: { content: string }[] } };
    expect(whole.session.messages.map((m) => m.content)).toEqual(['first']);
    const res = await srv.json('/api/session/message', { session_id: id, text: 'second, token=ghp_abcdefghijklmnopqrstuvwxyz0123456789', answer: 'summary' });
    expect(res.status).toBe(200);
    const small = (await res.json()) as Record<string, unknown> & { session: Record<string, unknown>; message: Record<string, unknown> };
    expect(Object.keys(small).sort()).toEqual(['message', 'message_index', 'session']);
    expect(small.session).toMatchObject({ session_id: id, title: 'Untitled', message_count: 2 });
    expect(small.session).not.toHaveProperty('messages');
    expect(small.message_index).toBe(1);
    expect(small.message).toMatchObject({ role: 'user', attachments: [] });
    expect(small.message.content).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    // What GET /api/session shows for that row is what the answer carried.
    const read = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: { messages: unknown[]; updated_at: string } };
    expect(read.session.messages[1]).toEqual(small.message);
    expect(read.session.updated_at).toBe(small.session.updated_at);
    // A new version from the first message on: the answer's row replaces everything from its index on.
    const edited = (await (await srv.json('/api/session/message', { session_id: id, text: 'first, edited', message_index: 0, answer: 'summary' })).json()) as {
      message_index: number;
      message: { content: string; versions?: { count: number } };
      session: { message_count: number };
    };
    expect(edited).toMatchObject({ message_index: 0, message: { content: 'first, edited', versions: { count: 2 } }, session: { message_count: 1 } });
  });

  it.each([['whole'], [1], [true]])('refuses answer %j with the exact text, storing nothing', async (answer) => {
    const id = await srv.newSession();
    const res = await srv.json('/api/session/message', { session_id: id, text: 'x', answer });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'answer must be "session" or "summary"' });
    expect((await storedJson(srv.stateDir, id)).messages).toEqual([]);
  });

  it('lists sessions byte for byte as the projection of every listing, again after each change and a new known secret', async () => {
    const id = await srv.newSession();
    const body = async () => await (await srv.api('/api/sessions')).text();
    const first = await body();
    expect(await body()).toBe(first);
    // The kept body goes out gzipped when asked (fetch asks, and undoes it), the same bytes each time.
    const gz = await srv.api('/api/sessions', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe(first.length > 1024 ? 'gzip' : null);
    expect(await gz.text()).toBe(first);
    const parsed = JSON.parse(first) as { sessions: Parameters<typeof publicSessionSummary>[0][] };
    // Compact, and each summary exactly the projection's JSON.
    expect(first).toBe(JSON.stringify({ sessions: parsed.sessions.map(publicSessionSummary) }));
    await srv.json('/api/session/rename', { session_id: id, title: 'Renamed just now' });
    const renamed = JSON.parse(await body()) as { sessions: { session_id: string; title: string }[] };
    expect(renamed.sessions[0]).toMatchObject({ session_id: id, title: 'Renamed just now' });
    await srv.json('/api/session/message', { session_id: id, text: 'hello', answer: 'summary' });
    expect((JSON.parse(await body()) as { sessions: { message_count: number }[] }).sessions[0]!.message_count).toBe(1);
    // A title holding what becomes a known secret (an agent key saved later) is masked from then on.
    const key = 'satchel-bench-key-0123456789abcdef';
    await srv.json('/api/session/rename', { session_id: id, title: `key ${key}` });
    expect(await body()).toContain(key);
    rememberSecret(key);
    try {
      const after = await body();
      expect(after).not.toContain(key);
      expect(after).toContain(KNOWN_SECRET_MASK);
    } finally {
      forgetSecrets();
    }
  });
});
