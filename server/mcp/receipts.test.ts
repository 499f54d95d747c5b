// MCP read receipts and the "Keep out of MCP" switch, through the SDK's own client against a live server: what
// a person would check is what GET /api/session/receipts and GET /api/events say after an agent read something.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { postMultipart, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import type { McpReceipt } from '../core/wire.js';
import { MAX_CLIENT_NAME_CHARS } from '../store/receipts.js';

let srv: TestServer;
/** How long the event stream is read for the receipt's event before the test fails. */
const EVENT_DEADLINE_MS = 5_000;

async function connect(name: string, version = '2.0.1'): Promise<Client> {
  const client = new Client({ name, version });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
  return client;
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
  it('records which client read which attachment, the conversation and a workspace file, with friendly names', async () => {
    const id = await conversationWith({ 'report.txt': 'quarterly numbers' });
    await fs.writeFile(path.join(srv.workspace, 'plan.md'), '# plan');
    const claude = await connect('claude-code', '1.0.33');
    expect(textOf(await claude.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'report.txt' } }))).toBe('quarterly numbers');
    await claude.callTool({ name: 'read_session', arguments: { session_id: id } });
    await claude.callTool({ name: 'read_workspace_file', arguments: { session_id: id, path: 'plan.md' } });
    const got = await receipts(id);
    expect(got.map((r) => [r.client, r.kind, r.name, r.count])).toEqual([
      ['Claude Code', 'workspace', 'plan.md', 1],
      ['Claude Code', 'conversation', '', 1],
      ['Claude Code', 'attachment', 'report.txt', 1],
    ]);
    expect(got[0]!.client_version).toBe('1.0.33');
    expect(Date.parse(got[0]!.last_at)).toBeGreaterThan(Date.now() - 60_000);
    await claude.close();
  });

  it('coalesces an agent polling the same file into one receipt with a count; another client gets its own', async () => {
    const id = await conversationWith({ 'notes.txt': 'n' });
    const codex = await connect('codex-mcp-client');
    for (let i = 0; i < 5; i++) await codex.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'notes.txt' } });
    const cursor = await connect('cursor-vscode');
    await cursor.readResource({ uri: `satchel://session/${id}/attachment/notes.txt` });
    expect((await receipts(id)).map((r) => [r.client, r.name, r.count])).toEqual([
      ['Cursor', 'notes.txt', 1],
      ['Codex', 'notes.txt', 5],
    ]);
    await codex.close();
    await cursor.close();
  });

  it('keeps an unknown client name as given, secrets redacted, control characters out, cut in length', async () => {
    const id = await conversationWith({ 'a.txt': 'a' });
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const odd = await connect(`My\u202e Agent ${secret} ${'x'.repeat(200)}`);
    await odd.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'a.txt' } });
    const [r] = await receipts(id);
    expect(r!.client.startsWith('My Agent ')).toBe(true);
    expect(r!.client).not.toContain(secret);
    expect(r!.client).not.toContain('\u202e');
    expect(r!.client.length).toBeLessThanOrEqual(MAX_CLIENT_NAME_CHARS);
    await odd.close();
  });

  it('records nothing for a failed read, and records a search hit as what it showed', async () => {
    const id = await conversationWith({ 'heron.txt': 'the grey heron waits' }, 'nothing here');
    const hermes = await connect('hermes');
    const missing = await hermes.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'nope.txt' } });
    expect(missing.isError).toBe(true);
    expect(await receipts(id)).toEqual([]);
    await hermes.callTool({ name: 'search', arguments: { session_id: id, query: 'heron' } });
    expect((await receipts(id)).map((r) => [r.client, r.kind, r.name])).toEqual([['Hermes', 'attachment', 'heron.txt']]);
    await hermes.close();
  });

  it('tells open windows at once on the event stream', async () => {
    const id = await conversationWith({ 'live.txt': 'l' });
    const controller = new AbortController();
    const res = await srv.api('/api/events', { signal: controller.signal });
    const reader = res.body!.getReader();
    // The stream never ends by itself: a missing event fails here, not by hanging the run.
    const deadline = setTimeout(() => controller.abort(), EVENT_DEADLINE_MS);
    const client = await connect('claude-code');
    await client.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'live.txt' } });
    let seen = '';
    while (!seen.includes('event: mcp_read')) seen += new TextDecoder().decode((await reader.read()).value);
    const line = seen.slice(seen.indexOf('event: mcp_read')).split('\n')[1]!;
    expect(JSON.parse(line.slice('data: '.length))).toMatchObject({ session_id: id, receipt: { client: 'Claude Code', kind: 'attachment', name: 'live.txt', count: 1 } });
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
