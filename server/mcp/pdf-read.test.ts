// MCP's read_attachment on a PDF returns what the agent gets in a turn (agent/read/pdf.ts): its pages' text under
// their markers, cut at max_chars the same way; an encrypted one by the chip's words. The PDFs are the committed
// fixtures (ps2pdf, and qpdf for the encrypted one; see agent/read/testing/pdf-tools.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildTurnMessages } from '../agent/input.js';
import { FIXTURES } from '../content/testing/pdf-tools.js';
import type { ChatAttachment } from '../core/wire.js';
import { multipartBody, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';

let server: TestServer;
let sessionId: string;
let client: Client;
const uploaded = new Map<string, ChatAttachment>();

async function upload(name: string, content: Buffer): Promise<void> {
  const boundary = 'b0undary';
  const res = await server.api('/api/upload', {
    method: 'POST',
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body: new Uint8Array(multipartBody(boundary, [{ name: 'session_id', content: sessionId }, { name: 'file', filename: name, content }])),
  });
  expect(res.status).toBe(200);
  uploaded.set(name, { kind: 'file', ...((await res.json()) as Omit<ChatAttachment, 'kind'>) } as ChatAttachment);
}

const readAttachment = async (name: string, maxChars?: number) =>
  (((await client.callTool({ name: 'read_attachment', arguments: { session_id: sessionId, name, ...(maxChars ? { max_chars: maxChars } : {}) } })).content as { text?: string }[])[0]?.text) ?? '';

/** The text part the agent gets for the uploaded `name` in a turn with `contextChars` to spend. */
async function turnText(name: string, contextChars = 200_000): Promise<string> {
  const a = uploaded.get(name)!;
  const config = { baseUrl: 'http://127.0.0.1:1', model: 'm', kind: 'openai' as const, idleTimeoutMs: 1000, contextChars };
  const [turn] = (await buildTurnMessages([], '', [a], config, { roots: [path.dirname(a.path)] })).messages;
  return ((turn!.content as { type: string; text?: string }[])[0]!.text ?? '');
}

beforeAll(async () => {
  server = await startTestServer();
  sessionId = await server.newSession();
  await upload('memo.pdf', fs.readFileSync(path.join(FIXTURES, 'memo-scan.pdf')));
  await upload('locked.pdf', fs.readFileSync(path.join(FIXTURES, 'memo-encrypted.pdf')));
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

describe('read_attachment on a PDF', () => {
  it('returns the page text the agent gets', async () => {
    const text = await readAttachment('memo.pdf');
    expect(text).toBe('Attached PDF "memo.pdf" (2 pages):\n--- Page 1 ---\nQuarterly memo\nRevenue rose by 12 percent.\n--- Page 2 ---\n[no text on this page]');
    expect(await turnText('memo.pdf')).toBe(text);
  });

  it('cuts at max_chars with the marker naming the file', async () => {
    expect(await readAttachment('memo.pdf', 30)).toBe('Attached PDF "memo.pdf" (2 pages):\n--- Page 1 ---\nQuarterly memo\n\n[… truncated: 65 more characters of memo.pdf]');
  });

  it('says why an encrypted PDF gave no text', async () => {
    expect(JSON.parse(await readAttachment('locked.pdf'))).toMatchObject({ kind: 'binary', mime: 'application/pdf', note: 'PDF whose text could not be read: encrypted: remove the password and attach it again' });
  });
});
