// Images through the MCP endpoint with the SDK's own client: a photo ffmpeg made arrives downscaled, with a
// note of its real size; a file that only claims to be an image by its name arrives as what it is, a damaged
// image as metadata, never as a 500.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AGENT_IMAGE_MAX_EDGE } from '../image/downscale.js';
import { postMultipart, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { USER_CONTENT_META } from './server.js';
import { renderPage } from '../ocr/testing/render.js';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
if (!hasFfmpeg) console.log('SKIP server/mcp/image-read.test.ts (photo case): ffmpeg is not installed (Debian package ffmpeg)');

let server: TestServer;
let sessionId: string;
let client: Client;
let dir: string;

async function upload(name: string, content: Buffer): Promise<void> {
  const res = await postMultipart(server, '/api/upload', [{ name: 'session_id', content: sessionId }, { name: 'file', filename: name, content }]);
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'satchel-mcp-image-'));
  server = await startTestServer();
  sessionId = await server.newSession();
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
});

afterAll(async () => {
  await client?.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Part = { type: string; data?: string; mimeType?: string; text?: string };

describe('read_attachment on images', () => {
  it.skipIf(!hasFfmpeg)('a 4000×3000 photo comes back at most 1568 px wide, as a JPEG, with a note of its real size', async () => {
    const file = path.join(dir, 'harbour.jpg');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=4000x3000', '-q:v', '2', '-frames:v', '1', file]);
    await upload('harbour.jpg', readFileSync(file));
    const result = await client.callTool({ name: 'read_attachment', arguments: { session_id: sessionId, name: 'harbour.jpg' } });
    const [image, note] = result.content as Part[];
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
    const out = path.join(dir, 'out.jpg');
    writeFileSync(out, Buffer.from(image!.data!, 'base64'));
    const probed = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', out], { encoding: 'utf8' }).trim();
    expect(probed).toBe(`${AGENT_IMAGE_MAX_EDGE},1176`);
    expect(note).toEqual({ type: 'text', text: `harbour.jpg: 4000×3000 pixels, shown at ${AGENT_IMAGE_MAX_EDGE}×1176 (image/jpeg, at most 1048576 bytes)`, _meta: USER_CONTENT_META });
  });

  it('a picture of text comes back with the words on-device OCR found in it, as the agent gets them', async () => {
    const page = await renderPage('The invoice for the kingfisher survey is due on Friday.', { points: 14, dpi: 150 });
    await upload('invoice.png', page.png);
    const result = await client.callTool({ name: 'read_attachment', arguments: { session_id: sessionId, name: 'invoice.png' } });
    const texts = (result.content as Part[]).filter((p) => p.type === 'text').map((p) => p.text!);
    const recognized = texts.find((t) => t.startsWith('Text recognized in "invoice.png" (on-device OCR):\n'));
    expect(recognized).toMatch(/kingfisher survey is due on Friday/);
  }, 120_000);

  it('a .png that holds text comes back as its text: the bytes decide, not the name (issue 35)', async () => {
    await upload('fake.png', Buffer.from('this is plain text, not a picture'));
    const result = await client.callTool({ name: 'read_attachment', arguments: { session_id: sessionId, name: 'fake.png' } });
    expect(result.isError).toBeFalsy();
    expect((result.content as Part[])[0]).toEqual({ type: 'text', text: 'this is plain text, not a picture', _meta: USER_CONTENT_META });
  });

  it('a damaged PNG comes back as metadata that says why', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('not the rest of a PNG')]);
    await upload('broken.png', png);
    const result = await client.callTool({ name: 'read_attachment', arguments: { session_id: sessionId, name: 'broken.png' } });
    expect(result.isError).toBeFalsy();
    const body = JSON.parse((result.content as Part[])[0]!.text!);
    expect(body).toMatchObject({ kind: 'binary', name: 'broken.png', mime: 'image/png', size: png.length });
    expect(body.note).toMatch(/^image not returned: not a readable image \(.+\)$/);
  });
});
