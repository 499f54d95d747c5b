// Attack: the preview of an Office file (GET /api/workspace/preview) walks to the file through held directories,
// then the conversion must read those same bytes. A local process that exchanges the file's folder with a
// symlink to outside (renameat2 RENAME_EXCHANGE, in a loop) must never get an outside document converted and
// returned: paths never escape their roots, even while another process swaps directories.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildDocx, wPara, wRun } from '../office/testing/fixtures.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { pool, restorePair, startSwapper, swapSkipReason, type Swapper } from '../testing/swapper.js';

const PREVIEWS = 150;
const CONCURRENCY = 4;
const TEST_TIMEOUT_MS = 120_000;
const INSIDE_TEXT = 'inside document words';
const OUTSIDE_TEXT = 'OUTSIDE confidential words';

const skip = swapSkipReason() !== undefined;

let srv: TestServer;
let ws: string;
let session: string;
let swapper: Swapper | undefined;
let client: Client;
let bundle: string;

beforeAll(async () => {
  if (skip) return;
  srv = await startTestServer();
  ws = await fs.realpath(srv.workspace);
  const outside = path.join(await fs.realpath(srv.tmp), 'outside');
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'doc.docx'), await buildDocx(wPara(wRun(OUTSIDE_TEXT))));
  await fs.mkdir(path.join(ws, 'swap'));
  await fs.writeFile(path.join(ws, 'swap', 'doc.docx'), await buildDocx(wPara(wRun(INSIDE_TEXT))));
  await fs.symlink(outside, path.join(ws, 'swap-link'));
  session = await srv.newSession();
  // An extracted archive's folder in the session's attachments, and a link beside it to outside.
  bundle = path.join(srv.stateDir, 'attachments', session, 'bundle');
  await fs.mkdir(bundle, { recursive: true });
  await fs.writeFile(path.join(bundle, 'doc.docx'), await buildDocx(wPara(wRun(INSIDE_TEXT))));
  await fs.symlink(outside, `${bundle}-link`);
  client = new Client({ name: 'attack', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
});

afterAll(async () => {
  await client?.close();
  swapper?.kill();
  await srv?.stop();
});

/** Run `read` PREVIEWS times, CONCURRENCY at once, while the folder is swapped; the texts that came back. */
async function underSwap(dir: string, read: () => Promise<string | undefined>): Promise<string[]> {
  const link = `${dir}-link`;
  swapper = await startSwapper(dir, link);
  const texts: string[] = [];
  try {
    await pool(PREVIEWS, CONCURRENCY, async () => {
      const text = await read();
      if (text !== undefined) texts.push(text);
    });
  } finally {
    await swapper.stop();
    // Put the folder back where the next test expects it.
    await restorePair(dir, link);
  }
  return texts;
}

it.skipIf(skip)(
  'an Office preview never converts a document from outside the workspace while its folder is swapped',
  async () => {
    const statuses = new Set<number>();
    const texts = await underSwap(path.join(ws, 'swap'), async () => {
      const res = await srv.api(`/api/workspace/preview?session_id=${session}&path=${encodeURIComponent('swap/doc.docx')}`);
      statuses.add(res.status);
      const body = (await res.json()) as { text?: string };
      return res.status === 200 ? (body.text ?? '') : undefined;
    });
    expect(statuses.has(500)).toBe(false);
    // Some previews got through while the folder was in place (else the race proves nothing)...
    expect(texts.some((t) => t.includes(INSIDE_TEXT))).toBe(true);
    // ...and none of them read the outside document.
    expect(texts.filter((t) => t.includes(OUTSIDE_TEXT)).length).toBe(0);
  },
  TEST_TIMEOUT_MS,
);

it.skipIf(skip)(
  'MCP read_attachment never converts a document from outside the attachment folder while its folder is swapped',
  async () => {
    const texts = await underSwap(bundle, async () => {
      const result = await client.callTool({ name: 'read_attachment', arguments: { session_id: session, name: 'bundle/doc.docx' } });
      const part = (result.content as { type: string; text?: string }[])[0];
      return result.isError ? undefined : part?.text;
    });
    expect(texts.some((t) => t.includes(INSIDE_TEXT))).toBe(true);
    expect(texts.filter((t) => t.includes(OUTSIDE_TEXT)).length).toBe(0);
  },
  TEST_TIMEOUT_MS,
);
