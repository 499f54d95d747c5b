// Grants and the ledger (issue 39, steps 2-4), through the official SDK client: per tool and resource, a
// conversation outside the key's grants answers exactly as one that does not exist, and every call is in the
// ledger with the bytes served and their hash. Removing the grant check (mcp/scope.ts) or the recorder
// (mcp/server.ts `tool`/`resource`) fails these.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { multipartBody, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { connectWith, firstText, ledger, makeKey, servedHash, type MadeKey } from './testing/keys.js';

let server: TestServer;
let granted: string;
let other: string;
let key: MadeKey;
let client: Client;
const MISSING = 'f'.repeat(32);

async function upload(session: string, name: string, content: string): Promise<void> {
  const boundary = 'b0undary';
  const res = await server.api('/api/upload', {
    method: 'POST',
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body: new Uint8Array(multipartBody(boundary, [{ name: 'session_id', content: session }, { name: 'file', filename: name, content }])),
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  server = await startTestServer();
  granted = await server.newSession();
  other = await server.newSession();
  for (const [id, word] of [[granted, 'granted'], [other, 'other']] as const) {
    expect((await server.json('/api/session/message', { session_id: id, text: `the heron of the ${word} conversation` })).status).toBe(200);
    await upload(id, 'notes.txt', `heron notes, ${word}\n`);
  }
  await fs.mkdir(path.join(server.workspace, 'docs'));
  await fs.writeFile(path.join(server.workspace, 'docs', 'plan.md'), '# Plan\nfeed the heron\n');
  key = await makeKey(server, { name: 'Codex', kind: 'codex', grants: [{ kind: 'conversation', session_id: granted }] });
  client = await connectWith(server, key.token);
});

afterAll(async () => {
  await client.close();
  await server.stop();
});

type Call = { name: string; arguments: (session: string) => Record<string, unknown>; kind: string };
const TOOLS: Call[] = [
  { name: 'read_session', arguments: (s) => ({ session_id: s }), kind: 'conversation' },
  { name: 'read_attachment', arguments: (s) => ({ session_id: s, name: 'notes.txt' }), kind: 'attachment' },
  { name: 'list_workspace', arguments: (s) => ({ session_id: s }), kind: 'workspace' },
  { name: 'read_workspace_file', arguments: (s) => ({ session_id: s, path: 'docs/plan.md' }), kind: 'workspace' },
  { name: 'search', arguments: (s) => ({ session_id: s, query: 'heron' }), kind: 'search' },
];

describe('grants, per tool', () => {
  for (const tool of TOOLS) {
    it(`${tool.name}: an ungranted conversation answers as a missing one; the granted read is in the ledger`, async () => {
      const missing = await client.callTool({ name: tool.name, arguments: tool.arguments(MISSING) });
      const refused = await client.callTool({ name: tool.name, arguments: tool.arguments(other) });
      expect(missing.isError).toBe(true);
      expect(refused).toEqual(missing);
      expect(firstText(refused)).toBe('Session not found');

      const before = (await ledger(server, `&key_id=${key.id}`))[0]?.id ?? 0;
      const result = await client.callTool({ name: tool.name, arguments: tool.arguments(granted) });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toContain(tool.name === 'list_workspace' ? 'docs' : 'heron');
      const rows = (await ledger(server, `&key_id=${key.id}`)).filter((r) => r.id > before);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ op: tool.name, outcome: 'ok', session_id: granted, kind: tool.kind, ...servedHash(result) });
      expect(rows[0]!.bytes).toBeGreaterThan(0);
      // The refusal is recorded too (an agent probing is seen), with nothing served.
      const probes = (await ledger(server, `&key_id=${key.id}&session_id=${other}`)).filter((r) => r.op === tool.name);
      expect(probes.map((r) => [r.outcome, r.bytes, r.sha256])).toEqual([['not_found', 0, null]]);
    });
  }

  it('covers every tool: a new one must join TOOLS (and so get its grant and ledger checks)', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS.map((t) => t.name), 'list_sessions'].sort());
  });

  it('list_sessions lists only the granted conversation, and is recorded', async () => {
    const result = await client.callTool({ name: 'list_sessions', arguments: {} });
    expect(JSON.parse(firstText(result)).map((s: { session_id: string }) => s.session_id)).toEqual([granted]);
    const [row] = await ledger(server, `&key_id=${key.id}`);
    expect(row).toMatchObject({ op: 'list_sessions', outcome: 'ok', kind: 'list', ...servedHash(result) });
  });

  it('resources: an ungranted conversation is the error of a missing one; lists hold only granted ones; reads recorded', async () => {
    for (const uri of [(s: string) => `satchel://session/${s}`, (s: string) => `satchel://session/${s}/attachment/notes.txt`, (s: string) => `satchel://session/${s}/workspace/docs%2Fplan.md`]) {
      const missing = await client.readResource({ uri: uri(MISSING) }).catch((err: { code: number; message: string }) => [err.code, err.message.replace(MISSING, 'X')]);
      const refused = await client.readResource({ uri: uri(other) }).catch((err: { code: number; message: string }) => [err.code, err.message.replace(other, 'X')]);
      expect(refused).toEqual(missing);
      expect(refused).toEqual([-32002, expect.stringContaining('Session not found')]);
      const read = await client.readResource({ uri: uri(granted) });
      const [row] = await ledger(server, `&key_id=${key.id}`);
      expect(row).toMatchObject({ outcome: 'ok', session_id: granted });
      expect(row!.op).toMatch(/^resource:/);
      const text = (read.contents[0] as { text?: string }).text ?? '';
      expect(row!.bytes).toBe(Buffer.byteLength(text));
    }
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain(`satchel://session/${granted}`);
    expect(uris.some((u) => u.includes(other))).toBe(false);
  });

  it('search without a session_id finds across the granted conversations only', async () => {
    const result = await client.callTool({ name: 'search', arguments: { query: 'heron' } });
    const found = JSON.parse(firstText(result));
    expect(found.results.length).toBeGreaterThan(0);
    expect(new Set(found.results.map((r: { session_id: string }) => r.session_id))).toEqual(new Set([granted]));
    expect(found.results[0]).toMatchObject({ session_id: granted, uri: expect.stringContaining(granted), snippet: expect.stringContaining('heron') });
    const rows = (await ledger(server, `&key_id=${key.id}`)).filter((r) => r.op === 'search' && r.query === 'heron' && r.session_id === granted);
    expect(rows.length).toBeGreaterThan(0);
    // The person's own token sees both.
    const launch = await connectWith(server, TEST_TOKEN);
    const all = JSON.parse(firstText(await launch.callTool({ name: 'search', arguments: { query: 'heron' } })));
    await launch.close();
    expect(new Set(all.results.map((r: { session_id: string }) => r.session_id))).toEqual(new Set([granted, other]));
  });
});

describe('grants, kinds and changes', () => {
  const ids = async (c: Client) => JSON.parse(firstText(await c.callTool({ name: 'list_sessions', arguments: {} }))).map((s: { session_id: string }) => s.session_id).sort();

  it('a grant changed applies to the next call of an open session; "Keep out of MCP" overrides every grant', async () => {
    const k = await makeKey(server, { name: 'Changing', grants: [] });
    const c = await connectWith(server, k.token);
    expect(await ids(c)).toEqual([]);
    expect((await server.json('/api/mcp/keys/grants', { id: k.id, grants: [{ kind: 'workspace', path: server.workspace }] })).status).toBe(200);
    expect(await ids(c)).toEqual([granted, other].sort());
    expect((await server.json('/api/mcp/keys/grants', { id: k.id, grants: [{ kind: 'workspace', path: path.join(server.tmp, 'elsewhere') }] })).status).toBe(200);
    expect(await ids(c)).toEqual([]);
    const kept = await server.newSession();
    expect((await server.json('/api/session/settings', { session_id: kept, keep_out_of_mcp: true })).status).toBe(200);
    expect((await server.json('/api/mcp/keys/grants', { id: k.id, grants: [{ kind: 'conversation', session_id: kept }, { kind: 'all' }] })).status).toBe(200);
    expect(await ids(c)).not.toContain(kept);
    expect(firstText(await c.callTool({ name: 'read_session', arguments: { session_id: kept } }))).toBe('Session not found');
    await c.close();
  });

  it('an Inbox grant sees the Inbox conversation only', async () => {
    const sent = await server.json('/api/capture/send', { destination: 'inbox', text: 'an inbox note about the heron' });
    expect(sent.status).toBe(200);
    const inbox = ((await sent.json()) as { session_id: string }).session_id;
    const k = await makeKey(server, { name: 'Inbox reader', grants: [{ kind: 'inbox' }] });
    const c = await connectWith(server, k.token);
    expect(await ids(c)).toEqual([inbox]);
    expect(firstText(await c.callTool({ name: 'read_session', arguments: { session_id: inbox } }))).toContain('an inbox note');
    expect(firstText(await c.callTool({ name: 'read_session', arguments: { session_id: granted } }))).toBe('Session not found');
    await c.close();
  });

  it('a grant past its expiry no longer counts', async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const k = await makeKey(server, { name: 'Expiring', grants: [{ kind: 'conversation', session_id: granted, expires_at: soon }] });
    const c = await connectWith(server, k.token);
    expect(await ids(c)).toEqual([granted]);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(await ids(c)).toEqual([]);
    expect(firstText(await c.callTool({ name: 'read_session', arguments: { session_id: granted } }))).toBe('Session not found');
    await c.close();
  });
});

describe('the ledger routes', () => {
  it('pages by key and conversation, exports JSON and CSV, and answers bad input exactly', async () => {
    const page = await server.api(`/api/mcp/ledger?key_id=${key.id}&limit=2`);
    const body = (await page.json()) as { entries: { id: number }[]; next: number };
    expect(body.entries).toHaveLength(2);
    const rest = (await (await server.api(`/api/mcp/ledger?key_id=${key.id}&before=${body.next}&limit=500`)).json()) as { entries: { id: number }[] };
    expect(Math.max(...rest.entries.map((e) => e.id))).toBeLessThan(body.entries[1]!.id);
    const all = await ledger(server, `&key_id=${key.id}`);
    const json = await server.api(`/api/mcp/ledger/export?format=json&key_id=${key.id}`);
    expect(json.headers.get('content-disposition')).toBe('attachment; filename="satchel-mcp-ledger.json"');
    expect(((await json.json()) as { entries: unknown[] }).entries).toEqual(all);
    const csv = await server.api(`/api/mcp/ledger/export?format=csv&key_id=${key.id}&session_id=${granted}`);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,at,key_id,op,outcome,session_id,kind,name,range,query,bytes,sha256');
    expect(lines.length - 1).toBe(all.filter((r) => r.session_id === granted).length);
    const err = async (url: string) => {
      const res = await server.api(url);
      return [res.status, ((await res.json()) as { error: string }).error];
    };
    expect(await err('/api/mcp/ledger/export?format=xml')).toEqual([400, 'format must be json or csv']);
    expect(await err('/api/mcp/ledger?limit=0')).toEqual([400, 'limit must be a whole number from 1 to 500']);
    expect(await err('/api/mcp/ledger?before=x')).toEqual([400, 'before must be a positive whole number']);
    expect(await err('/api/mcp/ledger?key_id=nope')).toEqual([404, 'Agent key not found']);
  });
});

describe('search across conversations, a key of chosen conversations', () => {
  // Last: its conversations share the test server's workspace, which a workspace grant above lists exactly.
  it('finds in the granted ones only: not one kept out of MCP, deleted, of no conversation, nor one granted to no one', async () => {
    const [kept, deleted, loose] = [await server.newSession(), await server.newSession(), await server.newSession()];
    for (const id of [kept, deleted, loose]) expect((await server.json('/api/session/message', { session_id: id, text: 'the egret by the heron' })).status).toBe(200);
    expect((await server.json('/api/session/settings', { session_id: kept, keep_out_of_mcp: true })).status).toBe(200);
    expect((await server.json('/api/session/delete', { session_id: deleted })).status).toBe(200);
    const grants = [granted, kept, deleted, MISSING].map((session_id) => ({ kind: 'conversation', session_id }));
    const chosen = await makeKey(server, { name: 'Chosen', grants });
    const c = await connectWith(server, chosen.token);
    try {
      const found = JSON.parse(firstText(await c.callTool({ name: 'search', arguments: { query: 'heron' } })));
      expect(new Set(found.results.map((r: { session_id: string }) => r.session_id))).toEqual(new Set([granted]));
      // The same key granted the loose conversation too: it is found from the next call on.
      expect((await server.json(`/api/mcp/keys/grants`, { id: chosen.id, grants: [...grants, { kind: 'conversation', session_id: loose }] })).status).toBe(200);
      const again = JSON.parse(firstText(await c.callTool({ name: 'search', arguments: { query: 'egret' } })));
      expect(again.results.map((r: { session_id: string }) => r.session_id)).toEqual([loose]);
    } finally {
      await c.close();
    }
  });
});
