// MCP's read_attachment says what Satchel's own agent gets from the attachment, the chip's words from the same
// sidecar: after the text of a text file, inside the JSON of a binary file; nothing for a file inside an
// extracted archive (it has no chip of its own).
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { agentViewComputations } from '../attachments/agent-view.js';
import { postMultipart, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { USER_CONTENT_NOTE } from './server.js';

let server: TestServer;
let sessionId: string;
let client: Client;

type Item = { type: string; text?: string };
const items = (result: unknown) => (result as { content: Item[] }).content;
const read = (name: string) => client.callTool({ name: 'read_attachment', arguments: { session_id: sessionId, name } });

beforeAll(async () => {
  server = await startTestServer();
  sessionId = await server.newSession();
  for (const [filename, content] of [['notes.txt', 'the heron again'], ['blob.bin', Buffer.from([0, 1, 2, 3, 0, 255])]] as const) {
    const res = await postMultipart(server, '/api/upload', [{ name: 'session_id', content: sessionId }, { name: 'file', filename, content }]);
    expect(res.status).toBe(200);
  }
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

describe('read_attachment: agent_view', () => {
  it('a text file: its text first, then what the agent gets, from the chip’s own sidecar', async () => {
    const chip = await server.api(`/api/attachment/summary?${new URLSearchParams({ session_id: sessionId, name: 'notes.txt' })}`);
    expect(await chip.json()).toEqual({ state: 'ready', text: '15 characters of text' });
    const before = agentViewComputations();
    expect(items(await read('notes.txt')).map((i) => i.text)).toEqual(['the heron again', 'agent_view: ready: 15 characters of text', USER_CONTENT_NOTE]);
    expect(agentViewComputations()).toBe(before);
  });

  it('a binary file: agent_view inside its JSON', async () => {
    expect(JSON.parse(items(await read('blob.bin'))[0]!.text!)).toMatchObject({
      kind: 'binary',
      agent_view: { state: 'unreadable', text: '6 bytes the agent cannot read: only its name is sent' },
    });
  });

  it('a file inside an extracted archive has none', async () => {
    const dir = path.join(server.stateDir, 'attachments', sessionId, 'bundle');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'a.txt'), 'a');
    expect(items(await read('bundle/a.txt')).map((i) => i.text)).toEqual(['a', USER_CONTENT_NOTE]);
    expect(JSON.parse(items(await read('bundle'))[0]!.text!)).toMatchObject({ kind: 'archive', agent_view: { state: 'ready', text: 'file list of 1 file, 1 text file inline' } });
  });
});
