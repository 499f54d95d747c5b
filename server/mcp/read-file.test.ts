// read_workspace_file reads a workspace file by what the content engine says it is (issue 35), as
// read_attachment does: before, anything but text came back as "binary", a PDF's text and an image included.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildPng } from '../../e2e/helpers/png.js';
import { FIXTURES } from '../content/testing/pdf-tools.js';
import { startTestServer, TEST_MCP_TOKEN, type TestServer } from '../testing/harness.js';

let srv: TestServer;
let client: Client;
let sessionId: string;

beforeAll(async () => {
  srv = await startTestServer();
  sessionId = await srv.newSession();
  client = new Client({ name: 'read-file', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_MCP_TOKEN}` } } }));
});
afterAll(async () => {
  await client?.close();
  await srv?.stop();
});

type Item = { type: string; text?: string; mimeType?: string; data?: string };
const readFile = async (file: string) => (await client.callTool({ name: 'read_workspace_file', arguments: { session_id: sessionId, path: file } })).content as Item[];

describe('read_workspace_file by what the file is', () => {
  it('a PNG without an extension is an image; text named .png is text', async () => {
    fs.writeFileSync(path.join(srv.workspace, 'scan'), buildPng(3, 2, () => [0, 90, 200]));
    fs.writeFileSync(path.join(srv.workspace, 'notes.png'), 'the heron count rose\n');
    const scan = await readFile('scan');
    expect(scan[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(scan[1]?.text).toMatch(/^scan: 3×2 pixels/);
    expect((await readFile('notes.png'))[0]).toMatchObject({ type: 'text', text: 'the heron count rose\n' });
  });

  it('a PDF as the text of its pages, as the agent gets it', async () => {
    fs.copyFileSync(path.join(FIXTURES, 'memo-scan.pdf'), path.join(srv.workspace, 'memo'));
    const [first] = await readFile('memo');
    expect(first?.text).toBe('Attached PDF "memo" (2 pages):\n--- Page 1 ---\nQuarterly memo\nRevenue rose by 12 percent.\n--- Page 2 ---\n[no text on this page]');
  }, 120_000);

  it('bytes nothing reads are still only metadata', async () => {
    fs.writeFileSync(path.join(srv.workspace, 'blob.bin'), Buffer.from([0, 1, 2, 0, 0xff, 0xfe]));
    expect(JSON.parse((await readFile('blob.bin'))[0]!.text!)).toEqual({ path: 'blob.bin', size: 6, note: 'binary file: content not returned' });
  });
});
