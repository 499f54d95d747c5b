// Delete with Undo, pin and archive over a real socket: what the person sees in the list and the bytes on disk.
// A deleted session is gone from every list, read and MCP tool at once; Undo brings all of it back; after the
// grace period its record, attachment folder (uploads, extractions) and draft are gone, and the workspace
// folder, the person's own, is exactly as it was.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { yazlZip } from '../archive/testing/fixtures.js';
import { postMultipart, startTestServer, TEST_TOKEN, waitUntil, type TestServer } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { scriptedAgent, TEST_AGENT_CONFIG } from '../testing/scripted-agent.js';
import { storedJson, storedSession } from '../testing/stored-session.js';
import { DELETE_WHILE_TURN_RUNS } from './sessions.js';

/** Short enough for a test, long enough that an Undo sent at once always lands inside it on a loaded machine. */
const GRACE_MS = 1_500;

const srv = testServerForFile({ sessionDeleteGraceMs: GRACE_MS });

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const exists = (p: string) => fs.lstat(p).then(() => true, () => false);
/** Whether the session's record is still in the database (read through a connection of the test's own). */
const isStored = async (s: TestServer, id: string) => (await storedSession(s.stateDir, id)) !== undefined;
const attachmentFolder = (s: TestServer, id: string) => path.join(s.stateDir, 'attachments', id);
const draftFile = (s: TestServer, id: string) => path.join(s.stateDir, 'drafts', `${id}.json`);
const listed = async (s: TestServer): Promise<Json[]> => ((await (await s.api('/api/sessions')).json()) as { sessions: Json[] }).sessions;

async function mcpSessions(s: TestServer): Promise<string[]> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(s.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
  try {
    const result = (await client.callTool({ name: 'list_sessions', arguments: {} })) as { content: { text: string }[] };
    return (JSON.parse(result.content[0]!.text) as { session_id: string }[]).map((r) => r.session_id);
  } finally {
    await client.close();
  }
}

/** A session with what a person leaves in one: a message, an upload, an extracted archive, a draft, and a
 *  workspace with their own files. */
async function furnished(s: TestServer): Promise<{ id: string; upload: string; extracted: string }> {
  const id = await s.newSession();
  const up = await postMultipart(s, '/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'notes.txt', content: 'heron notes' }]);
  expect(up.status).toBe(200);
  const zip = await yazlZip({ 'report/table.csv': Buffer.from('a,b\n') });
  const x = await postMultipart(s, '/api/upload/extract', [{ name: 'session_id', content: id }, { name: 'file', filename: 'report.zip', content: zip }]);
  expect(x.status).toBe(200);
  expect((await s.json('/api/session/message', { session_id: id, text: 'see the notes', attachments: [{ path: up.body.path }] })).status).toBe(200);
  const draft = await s.api('/api/session/draft', { method: 'PUT', body: JSON.stringify({ session_id: id, text: 'half a thought', attachments: [] }), headers: { 'Content-Type': 'application/json' } });
  expect(draft.status).toBe(200);
  return { id, upload: up.body.path as string, extracted: x.body.dest as string };
}

describe('delete with Undo', () => {
  it('hides the session at once, and Undo brings back its record, files and draft', async () => {
    const { id, upload, extracted } = await furnished(srv);
    const res = await srv.json('/api/session/delete', { session_id: id });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ ok: true, session_id: id });
    expect(Date.parse(body.undo_until) - Date.now()).toBeGreaterThan(0);
    expect(Date.parse(body.undo_until) - Date.now()).toBeLessThanOrEqual(GRACE_MS);

    // Gone from every list and read: the UI's list, GET, a chat, an upload, MCP.
    expect((await listed(srv)).map((s) => s.session_id)).not.toContain(id);
    const read = await srv.api(`/api/session?session_id=${id}`);
    expect(read.status).toBe(404);
    expect(await read.json()).toEqual({ error: 'Session not found' });
    const up = await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: 'late.txt', content: 'x' }]);
    expect(up.status).toBe(404);
    expect(await mcpSessions(srv)).not.toContain(id);
    const again = await srv.json('/api/session/delete', { session_id: id });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: 'Session not found' });

    const undo = await srv.json('/api/session/restore', { session_id: id });
    expect(undo.status).toBe(200);
    const { session } = (await undo.json()) as Json;
    expect(session).toMatchObject({ session_id: id, messages: [{ role: 'user', content: 'see the notes' }] });
    expect(session).not.toHaveProperty('deleted_at');
    // Past the grace period nothing is purged: the restore cancelled it.
    await new Promise((r) => setTimeout(r, GRACE_MS + 500));
    expect((await listed(srv)).map((s) => s.session_id)).toContain(id);
    expect(await fs.readFile(upload, 'utf8')).toBe('heron notes');
    expect(await fs.readFile(path.join(extracted, 'report', 'table.csv'), 'utf8')).toBe('a,b\n');
    const draft = (await (await srv.api(`/api/session/draft?session_id=${id}`)).json()) as Json;
    expect(draft.draft.text).toBe('half a thought');
    expect(await mcpSessions(srv)).toContain(id);
  });

  it('after the grace period purges the record, attachment folder and draft, and never touches the workspace', async () => {
    const { id } = await furnished(srv);
    // The person's own files, and a link in the attachment folder that points into the workspace.
    await fs.mkdir(path.join(srv.workspace, 'project'), { recursive: true });
    await fs.writeFile(path.join(srv.workspace, 'project', 'plan.md'), '# Plan\n');
    await fs.symlink(srv.workspace, path.join(attachmentFolder(srv, id), 'workspace-link'));
    expect(await exists(draftFile(srv, id))).toBe(true);

    expect((await srv.json('/api/session/delete', { session_id: id })).status).toBe(200);
    // Marked, not yet purged: the record is still on disk until the grace period ends.
    expect((await storedJson(srv.stateDir, id)).deleted_at).toEqual(expect.any(String));
    await waitUntil(async () => !(await isStored(srv, id)), 'the session record is purged');

    expect(await exists(attachmentFolder(srv, id))).toBe(false);
    expect(await exists(draftFile(srv, id))).toBe(false);
    expect(await fs.readFile(path.join(srv.workspace, 'project', 'plan.md'), 'utf8')).toBe('# Plan\n');
    const undo = await srv.json('/api/session/restore', { session_id: id });
    expect(undo.status).toBe(404);
    expect(await undo.json()).toEqual({ error: 'Session not found' });
  });

  it('finishes at start a purge a crash interrupted, and keeps hiding the session until then', async () => {
    const first = await startTestServer({ sessionDeleteGraceMs: 60_000 });
    try {
      const { id } = await furnished(first);
      expect((await first.json('/api/session/delete', { session_id: id })).status).toBe(200);
      await first.close();
      // As if the purge died after the draft went: the record is still marked, the folder still there.
      await fs.rm(draftFile(first, id));
      const second = await startTestServer({ stateDir: first.stateDir, defaultWorkspace: first.workspace, sessionDeleteGraceMs: GRACE_MS });
      try {
        expect((await listed(second)).map((s) => s.session_id)).not.toContain(id);
        expect((await second.api(`/api/session?session_id=${id}`)).status).toBe(404);
        // deleted_at is a minute old by the second server's grace, so the purge is due at once.
        await waitUntil(async () => !(await isStored(second, id)), 'the leftover is purged at start');
        expect(await exists(attachmentFolder(second, id))).toBe(false);
      } finally {
        await second.stop();
      }
    } finally {
      await fs.rm(first.tmp, { recursive: true, force: true });
    }
  });

  it('refuses a delete while a reply is being written (409), and names what is wrong', async () => {
    const agent = scriptedAgent();
    const busy = await startTestServer({ sessionDeleteGraceMs: GRACE_MS, agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
    try {
      const sid = await busy.newSession();
      const start = await busy.json('/api/chat/start', { session_id: sid, message: 'hello' });
      expect(start.status).toBe(200);
      const { stream_id } = (await start.json()) as Json;
      await agent.turn(0);
      const res = await busy.json('/api/session/delete', { session_id: sid });
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({ error: DELETE_WHILE_TURN_RUNS, active_stream_id: stream_id });
      expect((await listed(busy)).map((s) => s.session_id)).toContain(sid);
      agent.turns[0]!.finish();
    } finally {
      await busy.stop();
    }
  });

  it('answers bad input with exact 400s and 404s', async () => {
    const missing = await srv.json('/api/session/delete', {});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: 'Missing required field(s): session_id' });
    for (const route of ['/api/session/delete', '/api/session/restore', '/api/session/pin']) {
      const res = await srv.json(route, { session_id: '0123456789ab', pinned: true });
      expect(res.status, route).toBe(404);
      expect(await res.json()).toEqual({ error: 'Session not found' });
    }
    // Another profile's session is as missing as no session.
    const theirs = await srv.newSession({ profile: 'work' });
    expect((await srv.json('/api/session/delete', { session_id: theirs })).status).toBe(404);
    expect((await srv.json('/api/session/restore', { session_id: theirs })).status).toBe(404);
    // Restoring a session that is not deleted: nothing to undo.
    const live = await srv.newSession();
    expect((await srv.json('/api/session/restore', { session_id: live })).status).toBe(404);
  });
});

describe('pin and archive', () => {
  it('stores the flags, lists them, and leaves the last activity where it was', async () => {
    const id = await srv.newSession();
    const before = (await listed(srv)).find((s) => s.session_id === id)!;
    expect(before).toMatchObject({ pinned: false, archived: false });
    await new Promise((r) => setTimeout(r, 5));
    const pin = await srv.json('/api/session/pin', { session_id: id, pinned: true });
    expect(pin.status).toBe(200);
    expect(((await pin.json()) as Json).session).toMatchObject({ session_id: id, pinned: true, archived: false, updated_at: before.updated_at });
    const archive = await srv.json('/api/session/archive', { session_id: id, archived: true });
    expect(archive.status).toBe(200);
    const after = (await listed(srv)).find((s) => s.session_id === id)!;
    expect(after).toMatchObject({ pinned: true, archived: true, updated_at: before.updated_at });
    const stored = await storedJson(srv.stateDir, id);
    expect([stored.pinned, stored.archived]).toEqual([true, true]);

    expect((await srv.json('/api/session/pin', { session_id: id, pinned: false })).status).toBe(200);
    expect((await srv.json('/api/session/archive', { session_id: id, archived: false })).status).toBe(200);
    expect((await listed(srv)).find((s) => s.session_id === id)).toMatchObject({ pinned: false, archived: false });
    const cleared = await storedJson(srv.stateDir, id);
    expect(cleared).not.toHaveProperty('pinned');
    expect(cleared).not.toHaveProperty('archived');
    // Rename in place still works, and still counts as activity.
    const renamed = await srv.json('/api/session/rename', { session_id: id, title: 'Heron watch' });
    expect(((await renamed.json()) as Json).session.title).toBe('Heron watch');
  });

  it.each([
    ['/api/session/pin', { pinned: 'yes' }, 'pinned must be true or false'],
    ['/api/session/pin', {}, 'pinned must be true or false'],
    ['/api/session/archive', { archived: 1 }, 'archived must be true or false'],
  ])('%s refuses %j with the exact text', async (route, extra, error) => {
    const id = await srv.newSession();
    const res = await srv.json(route, { session_id: id, ...extra });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error });
  });
});
