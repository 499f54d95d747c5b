// MCP read receipts and the "Keep out of MCP" switch, through the SDK's own client against a live server: what
// a person would check is what GET /api/session/receipts and GET /api/events say after an agent read something.
// Receipts are read from the ledger (issue 39): each agent is named by its key, never by what its client says.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { postMultipart, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import type { McpReceipt } from '../core/wire.js';

let srv: TestServer;
/** How long the event stream is read for the receipt's event before the test fails. */
const EVENT_DEADLINE_MS = 5_000;

/** A client on the launch token (the person's own), calling itself `name`. */
async function connect(name: string, version = '2.0.1', token = TEST_TOKEN): Promise<Client> {
  const client = new Client({ name, version });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** A new agent key the person named `keyName` (granted all), and a client on it calling itself `clientName`. */
async function agent(keyName: string, clientName = 'some-mcp-client'): Promise<Client> {
  const res = await srv.json('/api/mcp/keys', { name: keyName, kind: 'other', grants: [{ kind: 'all' }] });
  expect(res.status).toBe(200);
  return connect(clientName, '2.0.1', ((await res.json()) as { token: string }).token);
}

async function receipts(id: string): Promise<McpReceipt[]> {
  const res = await srv.api(`/api/session/receipts?session_id=${id}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { receipts: McpReceipt[] }).receipts;
}

async function conversationWith(files: Record<string, string>, text = 'the conversation text'): Promise<string> {
  const id = await srv.newSession();
  expect((await srv.json('/api/session/message', { session_id: id, text })).status).toBe(200);
  for (const [name, content] of Object.entries(files)) {
    expect((await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: name, content }])).status).toBe(200);
  }
  return id;
}

const textOf = (r: unknown) => ((r as { content: { text?: string }[] }).content[0]?.text ?? '');

beforeAll(async () => {
  srv = await startTestServer();
});

afterAll(async () => {
  await srv.stop();
});

describe('MCP read receipts', () => {
  it('names the agent by its key, not by what its client declares, for an attachment, the conversation and a workspace file', async () => {
    const id = await conversationWith({ 'report.txt': 'quarterly numbers' });
    await fs.writeFile(path.join(srv.workspace, 'plan.md'), '# plan');
    // The client says it is Codex; the person connected it as Claude Code.
    const claude = await agent('Claude Code', 'codex');
    expect(textOf(await claude.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'report.txt' } }))).toBe('quarterly numbers');
    await claude.callTool({ name: 'read_session', arguments: { session_id: id } });
    await claude.callTool({ name: 'read_workspace_file', arguments: { session_id: id, path: 'plan.md' } });
    const got = await receipts(id);
    expect(got.map((r) => [r.client, r.kind, r.name, r.count])).toEqual([
      ['Claude Code', 'workspace', 'plan.md', 1],
      ['Claude Code', 'conversation', '', 1],
      ['Claude Code', 'attachment', 'report.txt', 1],
    ]);
    expect(got[0]!.client_version).toBeUndefined();
    expect(Date.parse(got[0]!.last_at)).toBeGreaterThan(Date.now() - 60_000);
    await claude.close();
  });

  it('coalesces an agent polling the same file into one receipt with a count; another agent gets its own', async () => {
    const id = await conversationWith({ 'notes.txt': 'n' });
    const codex = await agent('Codex');
    for (let i = 0; i < 5; i++) await codex.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'notes.txt' } });
    // The same declared name on another key: another agent.
    const cursor = await agent('Cursor');
    await cursor.readResource({ uri: `satchel://session/${id}/attachment/notes.txt` });
    expect((await receipts(id)).map((r) => [r.client, r.name, r.count])).toEqual([
      ['Cursor', 'notes.txt', 1],
      ['Codex', 'notes.txt', 5],
    ]);
    await codex.close();
    await cursor.close();
  });

  it('calls a read with the launch token or the shared MCP token by what it is, whatever the client says', async () => {
    const id = await conversationWith({ 'a.txt': 'a' });
    const launch = await connect('claude-code');
    await launch.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'a.txt' } });
    const shared = await connect('claude-code', '1', ((await (await srv.api('/api/mcp')).json()) as { token: string }).token);
    await shared.callTool({ name: 'read_session', arguments: { session_id: id } });
    expect((await receipts(id)).map((r) => [r.client, r.kind])).toEqual([
      ['Unnamed client', 'conversation'],
      ['Launch token', 'attachment'],
    ]);
    await launch.close();
    await shared.close();
  });

  it('records nothing for a failed read, and a search as a read of the conversation', async () => {
    const id = await conversationWith({ 'heron.txt': 'the grey heron waits' }, 'nothing here');
    const hermes = await agent('Hermes');
    const missing = await hermes.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'nope.txt' } });
    expect(missing.isError).toBe(true);
    expect(await receipts(id)).toEqual([]);
    await hermes.callTool({ name: 'search', arguments: { session_id: id, query: 'heron' } });
    expect((await receipts(id)).map((r) => [r.client, r.kind, r.name])).toEqual([['Hermes', 'conversation', '']]);
    await hermes.close();
  });

  it('tells open windows at once on the event stream', async () => {
    const id = await conversationWith({ 'live.txt': 'l' });
    const controller = new AbortController();
    const res = await srv.api('/api/events', { signal: controller.signal });
    const reader = res.body!.getReader();
    // The stream never ends by itself: a missing event fails here, not by hanging the run.
    const deadline = setTimeout(() => controller.abort(), EVENT_DEADLINE_MS);
    const client = await agent('Claude Code');
    await client.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'live.txt' } });
    let seen = '';
    while (!seen.includes('event: mcp_read')) seen += new TextDecoder().decode((await reader.read()).value);
    const line = seen.slice(seen.indexOf('event: mcp_read')).split('\n')[1]!;
    expect(JSON.parse(line.slice('data: '.length))).toMatchObject({ session_id: id, receipt: { client: 'Claude Code', kind: 'attachment', name: 'live.txt', count: 1 } });
    clearTimeout(deadline);
    controller.abort();
    await client.close();
  });

  it("tells every profile's windows of each recorded call, one that names no conversation too (the panel's timeline)", async () => {
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(), EVENT_DEADLINE_MS);
    // A window of another profile than the agent's reads: the ledger is the app's.
    const res = await srv.api('/api/events', { signal: controller.signal, headers: { Cookie: 'satchel_profile=work' } });
    const reader = res.body!.getReader();
    const client = await agent('Timeline watcher');
    await client.callTool({ name: 'list_sessions', arguments: {} });
    await client.callTool({ name: 'read_session', arguments: { session_id: 'ffffffffffff' } });
    let seen = '';
    const added = () => seen.split('\n').filter((l) => l === 'event: mcp_ledger_added').length;
    while (added() < 2) seen += new TextDecoder().decode((await reader.read()).value);
    const data = seen.split('\n').filter((l, i, all) => all[i - 1] === 'event: mcp_ledger_added').map((l) => JSON.parse(l.slice('data: '.length)));
    const [key] = ((await (await srv.api('/api/mcp/keys')).json()) as { keys: { id: string; name: string }[] }).keys.filter((k) => k.name === 'Timeline watcher');
    expect(data.slice(0, 2)).toEqual([{ key_id: key!.id }, { key_id: key!.id }]);
    // Neither named a conversation: no receipt event for this profile's windows.
    expect(seen).not.toContain('event: mcp_read');
    clearTimeout(deadline);
    controller.abort();
    await client.close();
  });

  it('goes with the conversation when it is deleted', async () => {
    const id = await conversationWith({ 'gone.txt': 'g' });
    const client = await connect('claude-code');
    await client.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'gone.txt' } });
    expect(await receipts(id)).toHaveLength(1);
    expect((await srv.json('/api/session/delete', { session_id: id })).status).toBe(200);
    expect((await srv.api(`/api/session/receipts?session_id=${id}`)).status).toBe(404);
    await client.close();
  });
});

describe('Keep out of MCP', () => {
  it('is off by default, stored with the conversation, and hides it from every tool and resource', async () => {
    const id = await conversationWith({ 'private.txt': 'zanzibar plans' }, 'zanzibar in the message');
    await fs.mkdir(path.join(srv.workspace, 'kept'), { recursive: true });
    const client = await connect('claude-code');
    const before = JSON.parse(textOf(await client.callTool({ name: 'list_sessions', arguments: {} }))) as { session_id: string }[];
    expect(before.map((s) => s.session_id)).toContain(id);

    const set = await srv.json('/api/session/settings', { session_id: id, keep_out_of_mcp: true });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { session: { keep_out_of_mcp?: boolean } }).session.keep_out_of_mcp).toBe(true);
    const got = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: { keep_out_of_mcp?: boolean } };
    expect(got.session.keep_out_of_mcp).toBe(true);

    const after = JSON.parse(textOf(await client.callTool({ name: 'list_sessions', arguments: {} }))) as { session_id: string }[];
    expect(after.map((s) => s.session_id)).not.toContain(id);
    const sessionsResource = JSON.parse((((await client.readResource({ uri: 'satchel://sessions' })).contents[0]) as { text: string }).text) as { session_id: string }[];
    expect(sessionsResource.map((s) => s.session_id)).not.toContain(id);
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    expect(listed.filter((u) => u.includes(id))).toEqual([]);

    for (const [name, args] of [
      ['read_session', { session_id: id }],
      ['read_attachment', { session_id: id, name: 'private.txt' }],
      ['list_workspace', { session_id: id }],
      ['read_workspace_file', { session_id: id, path: 'plan.md' }],
      ['search', { session_id: id, query: 'zanzibar' }],
    ] as const) {
      const result = await client.callTool({ name, arguments: args });
      expect({ name, isError: result.isError, text: textOf(result) }).toEqual({ name, isError: true, text: 'Session not found' });
    }
    for (const uri of [`satchel://session/${id}`, `satchel://session/${id}/attachment/private.txt`, `satchel://session/${id}/workspace/plan.md`]) {
      await expect(client.readResource({ uri })).rejects.toThrow(/Session not found/);
    }
    expect(await receipts(id)).toEqual([]);

    expect((await srv.json('/api/session/settings', { session_id: id, keep_out_of_mcp: false })).status).toBe(200);
    expect(textOf(await client.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'private.txt' } }))).toBe('zanzibar plans');
    await client.close();
  });

  it('refuses a switch that is not a boolean with a clear 400', async () => {
    const id = await srv.newSession();
    const res = await srv.json('/api/session/settings', { session_id: id, keep_out_of_mcp: 'yes' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'keep_out_of_mcp must be true or false' });
  });
});
