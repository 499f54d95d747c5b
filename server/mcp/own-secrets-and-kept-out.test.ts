// Issue 33, finding 12: (a) the launch token and the MCP token pasted bare into a message are never served as
// they are (their `?token=` and `Bearer` forms always were masked); (b) "Keep out of MCP" also hides the
// conversation's workspace from every other conversation's MCP reads, unless a visible one works in that folder.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { KNOWN_SECRET_MASK } from '../redact/index.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';

let srv: TestServer;
let client: Client;
const clients: Client[] = [];

async function connect(token: string): Promise<Client> {
  const c = new Client({ name: 'probe', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(c);
  return c;
}

function text(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content[0]?.text) ?? '';
}

async function mcpToken(): Promise<string> {
  return ((await (await srv.api('/api/mcp')).json()) as { token: string }).token;
}

beforeAll(async () => {
  srv = await startTestServer();
  client = await connect(TEST_TOKEN);
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await srv.stop();
});

describe("Satchel's own tokens pasted bare", () => {
  it('are masked in MCP read_session and search, in the REST session, and in the REST search', async () => {
    const mcp = await mcpToken();
    expect(mcp.length).toBeGreaterThanOrEqual(12);
    const id = await srv.newSession();
    expect((await srv.json('/api/session/message', { session_id: id, text: `launch ${TEST_TOKEN} mcp ${mcp} pelicanword` })).status).toBe(200);
    const expected = `launch ${KNOWN_SECRET_MASK} mcp ${KNOWN_SECRET_MASK} pelicanword`;

    const read = JSON.parse(text(await client.callTool({ name: 'read_session', arguments: { session_id: id } })));
    expect(read.messages[0].text).toBe(expected);
    const found = text(await client.callTool({ name: 'search', arguments: { session_id: id, query: 'pelicanword' } }));
    expect(found).toContain('pelicanword');
    expect(found).not.toContain(TEST_TOKEN);
    expect(found).not.toContain(mcp);

    const rest = await (await srv.api(`/api/session?session_id=${id}`)).text();
    expect(rest).toContain(JSON.stringify(expected));
    const search = await (await srv.api('/api/search?q=pelicanword')).text();
    expect(search).not.toContain(TEST_TOKEN);
    expect(search).not.toContain(mcp);
  });

  it('a regenerated MCP token is masked at once', async () => {
    const res = await srv.json('/api/mcp/regenerate', {});
    expect(res.status).toBe(200);
    const next = ((await res.json()) as { token: string }).token;
    const id = await srv.newSession();
    expect((await srv.json('/api/session/message', { session_id: id, text: `new ${next}` })).status).toBe(200);
    const read = JSON.parse(text(await client.callTool({ name: 'read_session', arguments: { session_id: id } })));
    expect(read.messages[0].text).toBe(`new ${KNOWN_SECRET_MASK}`);
  });
});

describe('Keep out of MCP and a shared workspace', () => {
  const WORD = 'narwhalquince';
  let outer: string;
  let project: string;
  let kept: string;
  let visible: string;

  beforeAll(async () => {
    // `visible` works in the default workspace; `kept` in a project folder inside it.
    project = path.join(srv.workspace, 'proj');
    await fs.mkdir(path.join(project, 'inner'), { recursive: true });
    await fs.writeFile(path.join(project, 'plan.txt'), `the plan: ${WORD}\n`);
    await fs.writeFile(path.join(project, 'inner', 'deep.txt'), `deep ${WORD}\n`);
    await fs.writeFile(path.join(srv.workspace, 'top.txt'), 'top level\n');
    outer = srv.workspace;
    visible = await srv.newSession({ workspace: outer });
    kept = await srv.newSession({ workspace: project });
    expect((await srv.json('/api/session/settings', { session_id: kept, keep_out_of_mcp: true })).status).toBe(200);
  });

  afterEach(async () => {
    await srv.json('/api/session/settings', { session_id: kept, keep_out_of_mcp: true });
  });

  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  it('is not listed, read, walked into or searched through a visible conversation above it', async () => {
    const listing = JSON.parse(text(await call('list_workspace', { session_id: visible })));
    expect(listing.entries.map((e: { name: string }) => e.name)).toEqual(['top.txt']);
    // Exactly what a path that does not exist answers.
    const missing = await call('read_workspace_file', { session_id: visible, path: 'nothing/here.txt' });
    expect(await call('read_workspace_file', { session_id: visible, path: 'proj/plan.txt' })).toEqual(missing);
    expect(await call('read_workspace_file', { session_id: visible, path: 'proj/inner/deep.txt' })).toEqual(missing);
    const missingDir = await call('list_workspace', { session_id: visible, path: 'nothing' });
    expect(await call('list_workspace', { session_id: visible, path: 'proj' })).toEqual(missingDir);
    const resource = (p: string) => client.readResource({ uri: `satchel://session/${visible}/workspace/${encodeURIComponent(p)}` }).then(() => 'read', (e: Error) => e.message);
    expect(await resource('proj/plan.txt')).toBe(await resource('nothing/here.txt'));
    const found = JSON.parse(text(await call('search', { session_id: visible, query: WORD })));
    expect(found.results).toEqual([]);
    expect(await call('read_workspace_file', { session_id: visible, path: 'top.txt' })).not.toEqual(missing);
  });

  it('shows again when Keep out of MCP is turned off', async () => {
    expect((await srv.json('/api/session/settings', { session_id: kept, keep_out_of_mcp: false })).status).toBe(200);
    expect(text(await call('read_workspace_file', { session_id: visible, path: 'proj/plan.txt' }))).toContain(WORD);
    const found = JSON.parse(text(await call('search', { session_id: visible, query: WORD })));
    expect(found.results.map((r: { ref: string }) => r.ref).sort()).toEqual(['proj/inner/deep.txt', 'proj/plan.txt']);
  });

  it('stays readable through a visible conversation that works in that very folder, and one below it reads its own', async () => {
    const sharing = await srv.newSession({ workspace: project });
    const below = await srv.newSession({ workspace: path.join(project, 'inner') });
    try {
      expect(text(await call('read_workspace_file', { session_id: sharing, path: 'plan.txt' }))).toContain(WORD);
      expect(text(await call('read_workspace_file', { session_id: visible, path: 'proj/plan.txt' }))).toContain(WORD);
    } finally {
      expect((await srv.json('/api/session/delete', { session_id: sharing })).status).toBe(200);
    }
    // Without the sharing conversation: the one below still reads its own workspace, the one above cannot reach it.
    expect(text(await call('read_workspace_file', { session_id: below, path: 'deep.txt' }))).toContain(WORD);
    const missing = await call('read_workspace_file', { session_id: visible, path: 'nothing/here.txt' });
    expect(await call('read_workspace_file', { session_id: visible, path: 'proj/plan.txt' })).toEqual(missing);
  });
});
