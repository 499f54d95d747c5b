// Each agent its own key (issue 39, step 1): the panel's routes, the token shown once and stored hashed, masked,
// the shared MCP token as "Unnamed client", revoke and pause on the next request of an open session.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_MCP_TOKEN, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { connectWith, firstText, makeKey } from './testing/keys.js';

let server: TestServer;
let sessionId: string;

beforeAll(async () => {
  server = await startTestServer();
  sessionId = await server.newSession();
  expect((await server.json('/api/session/message', { session_id: sessionId, text: 'the lease ends in May' })).status).toBe(200);
});

afterAll(async () => {
  await server.stop();
});

async function keys(): Promise<{ id: string; name: string; kind: string; paused: boolean; revoked: boolean; grants: { kind: string }[] }[]> {
  return ((await (await server.api('/api/mcp/keys')).json()) as { keys: never[] }).keys;
}

async function errorOf(res: Response): Promise<[number, string]> {
  return [res.status, ((await res.json()) as { error: string }).error];
}

describe('agent keys', () => {
  it('lists the shared MCP token as "Unnamed client", granted everything', async () => {
    const [unnamed] = await keys();
    expect(unnamed).toMatchObject({ id: 'unnamed', name: 'Unnamed client', kind: 'other', paused: false, revoked: false, grants: [{ kind: 'all' }] });
    const client = await connectWith(server, TEST_MCP_TOKEN);
    expect(JSON.parse(firstText(await client.callTool({ name: 'list_sessions', arguments: {} })))[0].session_id).toBe(sessionId);
    await client.close();
  });

  it('shows a new token once, stores only its SHA-256, and never lists it', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-keys-'));
    let own = await startTestServer({ stateDir: dir });
    try {
      const res = await own.json('/api/mcp/keys', { name: 'Codex on laptop', kind: 'codex', grants: [{ kind: 'all' }] });
      expect(res.status).toBe(200);
      const made = (await res.json()) as { key: { id: string; name: string; kind: string }; token: string; clients: { codex: string } };
      expect(made.token).toMatch(/^satchel_ak_[A-Za-z0-9_-]{43}$/);
      expect(made.key).toMatchObject({ name: 'Codex on laptop', kind: 'codex' });
      expect(made.clients.codex).toContain(`Bearer ${made.token}`);
      expect(await (await own.api('/api/mcp/keys')).text()).not.toContain(made.token);
      await own.stop();
      // On disk: the hash, never the token (the database and its WAL).
      const files = (await fs.readdir(dir)).filter((f) => f.startsWith('satchel.db'));
      const bytes = Buffer.concat(await Promise.all(files.map((f) => fs.readFile(path.join(dir, f)))));
      expect(bytes.includes(Buffer.from(made.token))).toBe(false);
      expect(bytes.includes(Buffer.from(createHash('sha256').update(made.token).digest('hex')))).toBe(true);
      // After a restart the key still opens /mcp (only its hash was kept).
      own = await startTestServer({ stateDir: dir });
      const session = await own.newSession();
      const client = await connectWith(own, made.token);
      expect(JSON.parse(firstText(await client.callTool({ name: 'list_sessions', arguments: {} })))[0].session_id).toBe(session);
      await client.close();
    } finally {
      await own.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('masks a key pasted into a conversation, from its creation on', async () => {
    const { token } = await makeKey(server, { name: 'Cursor', kind: 'cursor', grants: [{ kind: 'all' }] });
    const id = await server.newSession();
    expect((await server.json('/api/session/message', { session_id: id, text: `my key is ${token} ok` })).status).toBe(200);
    const page = await (await server.api(`/api/session?session_id=${id}`)).text();
    expect(page).not.toContain(token);
    const client = await connectWith(server, TEST_MCP_TOKEN);
    const read = firstText(await client.callTool({ name: 'read_session', arguments: { session_id: id } }));
    await client.close();
    expect(read).toContain('my key is');
    expect(read).not.toContain(token);
  });

  it('masks a token by its shape too: one pasted after a restart, before its first use, is not served', async () => {
    const shaped = 'satchel_ak_' + 'Zq3xW9vB2nM5kL8pR1tY4uI7oP0aS6dF-gH_jK2lZ5c';
    const id = await server.newSession();
    expect((await server.json('/api/session/message', { session_id: id, text: `old key ${shaped} here` })).status).toBe(200);
    const client = await connectWith(server, TEST_MCP_TOKEN);
    const read = firstText(await client.callTool({ name: 'read_session', arguments: { session_id: id } }));
    await client.close();
    expect(read).toContain('old key');
    expect(read).not.toContain(shaped.slice(11));
  });

  it('refuses a revoked key on the next request of its open session, and closes nothing else', async () => {
    const a = await makeKey(server, { name: 'Claude Code', kind: 'claude_code', grants: [{ kind: 'all' }] });
    const b = await makeKey(server, { name: 'Hermes', kind: 'hermes', grants: [{ kind: 'all' }] });
    const ca = await connectWith(server, a.token);
    const cb = await connectWith(server, b.token);
    expect((await ca.callTool({ name: 'list_sessions', arguments: {} })).isError).toBeFalsy();
    const res = await server.json('/api/mcp/keys/revoke', { id: a.id });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { key: { revoked: boolean } }).key.revoked).toBe(true);
    await expect(ca.callTool({ name: 'list_sessions', arguments: {} })).rejects.toThrow(/401|invalid access token/i);
    expect((await cb.callTool({ name: 'list_sessions', arguments: {} })).isError).toBeFalsy();
    // A new session with the revoked token: refused too.
    await expect(connectWith(server, a.token)).rejects.toThrow(/401|invalid access token/i);
    await cb.close();
    // Revoking twice answers the same; pausing a revoked key is refused.
    expect((await server.json('/api/mcp/keys/revoke', { id: a.id })).status).toBe(200);
    expect(await errorOf(await server.json('/api/mcp/keys/pause', { id: a.id, paused: true }))).toEqual([400, 'This agent key is revoked']);
  });

  it('pauses and resumes a key: refused (403) while paused, its open session too', async () => {
    const k = await makeKey(server, { name: 'Paused one', grants: [{ kind: 'all' }] });
    const client = await connectWith(server, k.token);
    expect((await server.json('/api/mcp/keys/pause', { id: k.id, paused: true })).status).toBe(200);
    await expect(client.callTool({ name: 'list_sessions', arguments: {} })).rejects.toThrow(/paused|403/i);
    const raw = await fetch(server.origin + '/mcp', {
      method: 'POST',
      headers: { Authorization: `Bearer ${k.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(await errorOf(raw)).toEqual([403, "This agent's access to Satchel is paused"]);
    expect((await server.json('/api/mcp/keys/pause', { id: k.id, paused: false })).status).toBe(200);
    const again = await connectWith(server, k.token);
    expect((await again.callTool({ name: 'list_sessions', arguments: {} })).isError).toBeFalsy();
    await again.close();
  });

  it('retires the shared MCP token by revoking "Unnamed client"; the launch token still opens /mcp', async () => {
    const own = await startTestServer();
    try {
      expect((await own.json('/api/mcp/keys/revoke', { id: 'unnamed' })).status).toBe(200);
      await expect(connectWith(own, TEST_MCP_TOKEN)).rejects.toThrow(/401|invalid access token/i);
      const launch = await connectWith(own, TEST_TOKEN);
      expect((await launch.callTool({ name: 'list_sessions', arguments: {} })).isError).toBeFalsy();
      await launch.close();
    } finally {
      await own.stop();
    }
  });

  it("does not let one key's token continue another key's session", async () => {
    const a = await makeKey(server, { name: 'A', grants: [{ kind: 'all' }] });
    const b = await makeKey(server, { name: 'B', grants: [{ kind: 'all' }] });
    const ca = await connectWith(server, a.token);
    const sid = (ca.transport as unknown as { sessionId: string }).sessionId;
    const res = await fetch(server.origin + '/mcp', {
      method: 'POST',
      headers: { Authorization: `Bearer ${b.token}`, 'Mcp-Session-Id': sid, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    await ca.close();
  });

  it('answers bad input with exact 400 and 404 texts', async () => {
    expect(await errorOf(await server.json('/api/mcp/keys', { name: '  ' }))).toEqual([400, 'name must not be empty']);
    expect(await errorOf(await server.json('/api/mcp/keys', { name: 7 }))).toEqual([400, 'name must be a string']);
    expect(await errorOf(await server.json('/api/mcp/keys', { name: 'x'.repeat(65) }))).toEqual([400, 'name too long (max 64 characters)']);
    expect(await errorOf(await server.json('/api/mcp/keys', { name: 'x', kind: 'gemini' }))).toEqual([400, 'kind must be one of claude_code, codex, cursor, hermes, other']);
    expect(await errorOf(await server.json('/api/mcp/keys', { name: 'x', grants: {} }))).toEqual([400, 'grants must be a list']);
    expect(await errorOf(await server.json('/api/mcp/keys', { name: 'x', grants: [{ kind: 'everything' }] }))).toEqual([400, "A grant's kind must be one of all, conversation, inbox, workspace, folder"]);
    expect(await errorOf(await server.json('/api/mcp/keys', { name: 'x', grants: [{ kind: 'conversation' }] }))).toEqual([400, 'A conversation grant needs a session_id']);
    expect(await errorOf(await server.json('/api/mcp/keys', { name: 'x', grants: [{ kind: 'workspace', path: 'rel' }] }))).toEqual([400, 'A workspace grant needs an absolute path']);
    expect(await errorOf(await server.json('/api/mcp/keys', { name: 'x', grants: [{ kind: 'all', expires_at: 'soon' }] }))).toEqual([400, 'expires_at must be an ISO time']);
    expect(await errorOf(await server.json('/api/mcp/keys', { name: 'x', grants: [{ kind: 'all', expires_at: '2001-01-01T00:00:00Z' }] }))).toEqual([400, 'expires_at must be in the future']);
    expect(await errorOf(await server.json('/api/mcp/keys/rename', { id: 'nope', name: 'y' }))).toEqual([404, 'Agent key not found']);
    expect(await errorOf(await server.json('/api/mcp/keys/revoke', { id: 'nope' }))).toEqual([404, 'Agent key not found']);
    expect(await errorOf(await server.json('/api/mcp/keys/pause', { id: 'unnamed', paused: 'yes' }))).toEqual([400, 'paused must be true or false']);
    expect(await errorOf(await server.json('/api/mcp/keys/grants', { id: 'nope', grants: [] }))).toEqual([404, 'Agent key not found']);
    const renamed = await server.json('/api/mcp/keys/rename', { id: 'unnamed', name: 'Old shared token' });
    expect(((await renamed.json()) as { key: { name: string } }).key.name).toBe('Old shared token');
  });
});
