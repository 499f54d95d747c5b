// Attacks on "Keep out of MCP": an MCP client holding a valid token that guesses (or remembers) the id of a
// conversation kept out gets exactly what it gets for an id that does not exist, through every tool and
// resource, so it cannot even learn the conversation exists; a word found only in it is found nowhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { postMultipart, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';

const WORD = 'quokkaxylophone';
let srv: TestServer;
let kept: string;
let open: string;
let client: Client;
/** A well-formed id no conversation has: what "does not exist" answers. */
let absent: string;

beforeAll(async () => {
  srv = await startTestServer();
  kept = await srv.newSession();
  open = await srv.newSession();
  expect((await srv.json('/api/session/message', { session_id: kept, text: `only here: ${WORD}` })).status).toBe(200);
  expect((await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: kept }, { name: 'file', filename: 'secret.txt', content: WORD }])).status).toBe(200);
  expect((await srv.json('/api/session/message', { session_id: open, text: 'nothing special' })).status).toBe(200);
  expect((await srv.json('/api/session/settings', { session_id: kept, keep_out_of_mcp: true })).status).toBe(200);
  // The same shape as a real id, one character changed.
  absent = kept.slice(0, -1) + (kept.endsWith('a') ? 'b' : 'a');
  client = new Client({ name: 'prober', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
});

afterAll(async () => {
  await client.close();
  await srv.stop();
});

const calls = (id: string) =>
  [
    ['read_session', { session_id: id }],
    ['read_session', { session_id: id, offset: 0, limit: 1 }],
    ['read_attachment', { session_id: id, name: 'secret.txt' }],
    ['list_workspace', { session_id: id }],
    ['read_workspace_file', { session_id: id, path: 'x.txt' }],
    ['search', { session_id: id, query: WORD }],
  ] as const;

describe('a conversation kept out of MCP', () => {
  it('answers every tool exactly as an id that does not exist', async () => {
    const keptCalls = calls(kept);
    const absentCalls = calls(absent);
    for (let i = 0; i < keptCalls.length; i++) {
      const [name, args] = keptCalls[i]!;
      const got = await client.callTool({ name, arguments: args });
      const none = await client.callTool({ name, arguments: absentCalls[i]![1] });
      expect(got).toEqual(none);
      expect(JSON.stringify(got)).not.toContain(WORD);
    }
  });

  it('answers every resource exactly as an id that does not exist', async () => {
    for (const tail of ['', '/attachment/secret.txt', '/workspace/x.txt']) {
      const err = (id: string) => client.readResource({ uri: `satchel://session/${id}${tail}` }).then(() => 'read', (e: Error) => e.message);
      const got = await err(kept);
      expect(got).not.toBe('read');
      expect(got).toBe((await err(absent)).replace(absent, kept));
    }
  });

  it('is in no listing, and its word is found in no search', async () => {
    const listed = JSON.stringify([
      await client.callTool({ name: 'list_sessions', arguments: {} }),
      await client.readResource({ uri: 'satchel://sessions' }),
      await client.listResources(),
    ]);
    expect(listed).not.toContain(kept);
    const found = await client.callTool({ name: 'search', arguments: { session_id: open, query: WORD } });
    expect(JSON.parse((found.content as { text: string }[])[0]!.text).results).toEqual([]);
  });
});
