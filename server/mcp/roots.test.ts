// MCP Roots (issue 39) through the official SDK client declaring roots over Streamable HTTP: its workspace reads are
// limited to its roots within its grants (a root never widens a grant); a place outside answers exactly as a
// missing one; a changed root list applies from its notification on; a client declaring no roots is not limited.
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { connectWith, firstText, ledger, makeKey } from './testing/keys.js';

let server: TestServer;
let id: string;

beforeAll(async () => {
  server = await startTestServer();
  for (const [dir, text] of [
    ['proj-a', 'alpha notes'],
    ['proj-b', 'bravo notes'],
  ] as [string, string][]) {
    await fs.mkdir(path.join(server.workspace, dir));
    await fs.writeFile(path.join(server.workspace, dir, 'notes.txt'), text);
  }
  id = await server.newSession();
});

afterAll(async () => {
  await server.stop();
});

/** A client on `token` declaring `roots` (folders); `setRoots` changes them and tells the server. */
async function withRoots(token: string, roots: string[]): Promise<{ client: Client; setRoots: (next: string[]) => Promise<void> }> {
  let current = roots;
  const client = new Client({ name: 'rooted-agent', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: current.map((dir) => ({ uri: pathToFileURL(dir).href, name: path.basename(dir) })) }));
  await client.connect(new StreamableHTTPClientTransport(new URL(server.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return {
    client,
    setRoots: async (next) => {
      current = next;
      await client.sendRootsListChanged();
    },
  };
}

const read = (client: Client, p: string) => client.callTool({ name: 'read_workspace_file', arguments: { session_id: id, path: p } });
const outcome = (r: unknown) => [(r as { isError?: boolean }).isError === true, firstText(r)];

it('reads workspace files within the declared roots only, a place outside answering as a missing one', async () => {
  const key = await makeKey(server, { name: 'Rooted', kind: 'other', grants: [{ kind: 'all' }] });
  const { client } = await withRoots(key.token, [path.join(server.workspace, 'proj-a')]);
  try {
    expect(outcome(await read(client, 'proj-a/notes.txt'))).toEqual([false, 'alpha notes']);
    const missing = outcome(await read(client, 'proj-a/none.txt'));
    expect(missing[0]).toBe(true);
    expect(outcome(await read(client, 'proj-b/notes.txt'))).toEqual(missing);
    // The workspace's root holds proj-b's name: outside the roots too.
    expect(outcome(await client.callTool({ name: 'list_workspace', arguments: { session_id: id } }))).toEqual(missing);
    expect(JSON.parse(firstText(await client.callTool({ name: 'list_workspace', arguments: { session_id: id, path: 'proj-a' } }))).entries.map((e: { name: string }) => e.name)).toEqual(['notes.txt']);
    await expect(client.readResource({ uri: `satchel://session/${id}/workspace/proj-b%2Fnotes.txt` })).rejects.toThrow(/Not found/);
    // A search walks no workspace outside the roots.
    const found = JSON.parse(firstText(await client.callTool({ name: 'search', arguments: { session_id: id, query: 'bravo' } }))) as { results: unknown[] };
    expect(found.results).toEqual([]);
    // Each refusal is in the ledger as a read of nothing.
    const rows = await ledger(server, `&key_id=${key.id}`);
    expect(rows.filter((r) => r.op === 'read_workspace_file').map((r) => [r.name, r.outcome])).toEqual([
      ['proj-b/notes.txt', 'not_found'],
      ['proj-a/none.txt', 'not_found'],
      ['proj-a/notes.txt', 'ok'],
    ]);
  } finally {
    await client.close();
  }
});

it('applies a changed root list from its notification on', async () => {
  const key = await makeKey(server, { name: 'Moving', kind: 'other', grants: [{ kind: 'all' }] });
  const { client, setRoots } = await withRoots(key.token, [path.join(server.workspace, 'proj-a')]);
  try {
    expect(outcome(await read(client, 'proj-b/notes.txt'))[0]).toBe(true);
    await setRoots([path.join(server.workspace, 'proj-b')]);
    await expect.poll(async () => outcome(await read(client, 'proj-b/notes.txt'))).toEqual([false, 'bravo notes']);
    expect(outcome(await read(client, 'proj-a/notes.txt'))[0]).toBe(true);
  } finally {
    await client.close();
  }
});

it('never widens a grant: a root over a conversation the key is not granted reads nothing of it', async () => {
  const other = await server.newSession();
  const key = await makeKey(server, { name: 'Narrow', kind: 'other', grants: [{ kind: 'conversation', session_id: other }] });
  const { client } = await withRoots(key.token, [server.workspace]);
  try {
    expect(outcome(await read(client, 'proj-a/notes.txt'))).toEqual([true, 'Session not found']);
    const mine = await client.callTool({ name: 'read_workspace_file', arguments: { session_id: other, path: 'proj-a/notes.txt' } });
    expect(outcome(mine)).toEqual([false, 'alpha notes']);
  } finally {
    await client.close();
  }
});

it('does not limit a client that declares no roots', async () => {
  const key = await makeKey(server, { name: 'Rootless', kind: 'other', grants: [{ kind: 'all' }] });
  const client = await connectWith(server, key.token);
  try {
    expect(outcome(await read(client, 'proj-a/notes.txt'))).toEqual([false, 'alpha notes']);
    expect(outcome(await read(client, 'proj-b/notes.txt'))).toEqual([false, 'bravo notes']);
  } finally {
    await client.close();
  }
});
