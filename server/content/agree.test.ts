// One corpus of real files, made by real tools at test time (the scanned PDF is committed: testing/pdf-tools.ts),
// several under names that lie, each uploaded to a real test server and read three ways: the turn Satchel's agent
// receives (the fake agent records it), MCP's read_attachment (the SDK's own client), the chip
// (GET /api/attachment/summary), the preview (GET /api/attachment/preview) and search (GET /api/search). All must agree on what the file is and on what it says (issue 35): before
// the content engine, MCP called `notes.png` binary, and a PNG named `scan` or `shot.dat` reached MCP as binary and
// the agent as its name only.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { renderPage } from '../ocr/testing/render.js';
import { defaultModelDir, isLocalModelPresent } from '../speech/local.js';
import { missingTools, synthFlite } from '../speech/testing/synth.js';
import { reply, startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { postMultipart, startTestServer, TEST_MCP_TOKEN, waitUntil, type TestServer } from '../testing/harness.js';
import { openSse } from '../testing/sse.js';
import { FIXTURES as PDF_FIXTURES } from './testing/pdf-tools.js';

/** OCR, a PDF's worker and transcription each take seconds on a loaded two-core machine. */
const CASE_TIMEOUT_MS = 180_000;
const AGENT_KEY = 'agree-key';

const missing = missingTools('pandoc', 'zip', 'flite');
const IMG2PDF = fs.existsSync('/usr/bin/img2pdf') ? '/usr/bin/img2pdf' : undefined;
const speech = isLocalModelPresent(defaultModelDir());
if (missing.length) console.log(`SKIP parts of server/content/agree.test.ts: missing ${missing.join(', ')}`);
if (!speech) console.log('SKIP the audio case of server/content/agree.test.ts: no speech model (node scripts/fetch-model.mjs)');

type KindSeen = 'text' | 'image';
interface Fixture {
  name: string;
  make: (dir: string) => Promise<Buffer>;
  /** How the agent and MCP both carry it. */
  kind: KindSeen;
  /** Words all three must show (the chip in its own words: `chip`). */
  says: RegExp;
  chip: RegExp;
  /** A word of what the agent is sent that search must find in this attachment once the turn read it. */
  word: string;
  skip?: string;
}

const TEXT = 'Remember the kingfisher survey on Friday.\nBring the blue notebook.\n';
let pageOfText: Buffer | undefined;
const picture = async (): Promise<Buffer> => (pageOfText ??= (await renderPage('The kingfisher survey is due on Friday.', { points: 14, dpi: 150 })).png);

const FIXTURES: Fixture[] = [
  { name: 'notes.png', word: 'notebook', kind: 'text', make: async () => Buffer.from(TEXT), says: /kingfisher survey on Friday/, chip: /^\d+ characters of text$/ },
  { name: 'scan', word: 'kingfisher', kind: 'image', make: picture, says: /kingfisher survey is due on Friday/, chip: /^image, sent at \d+×\d+, \d+ words of text recognized$/ },
  { name: 'shot.dat', word: 'kingfisher', kind: 'image', make: picture, says: /kingfisher survey is due on Friday/, chip: /^image, sent at \d+×\d+, \d+ words of text recognized$/ },
  {
    name: 'server.log',
    word: 'retry',
    kind: 'text',
    make: async () => Buffer.from('12:00 caf\xe9 opened by Ren\xe9e\n12:01 na\xefve retry\n', 'latin1'),
    says: /café opened by Renée/,
    chip: /^\d+ characters of text \(ISO-8859-1\)$/,
  },
  {
    // A page of text as a scanner gives it (an image), wrapped into a PDF by img2pdf: no text layer, only OCR.
    name: 'scanned.pdf',
    word: 'heron',
    kind: 'text',
    skip: IMG2PDF ? undefined : 'img2pdf',
    make: async (dir) => {
      const png = path.join(dir, 'page.png');
      fs.writeFileSync(png, (await renderPage('The heron count rose by a third this spring.', { points: 14, dpi: 150 })).png);
      execFileSync(IMG2PDF!, [png, '-o', path.join(dir, 'scanned.pdf')]);
      return fs.readFileSync(path.join(dir, 'scanned.pdf'));
    },
    says: /--- Page 1 \(recognized by on-device OCR\) ---\n.*heron count/,
    chip: /^1 page, \d+ characters of text, the page recognized by OCR$/,
  },
  {
    // ps2pdf's text page and a page that is only a picture (committed: testing/pdf-tools.ts).
    name: 'memo-scan.pdf',
    word: 'Revenue',
    kind: 'text',
    make: async () => fs.readFileSync(path.join(PDF_FIXTURES, 'memo-scan.pdf')),
    says: /--- Page 1 ---\nQuarterly memo\nRevenue rose by 12 percent\.\n--- Page 2 ---\n\[no text on this page\]/,
    chip: /^1 of 2 pages have no text \(scanned\?\)$/,
  },
  {
    name: 'report.docx',
    word: 'heron',
    kind: 'text',
    skip: missing.includes('pandoc') ? 'pandoc' : undefined,
    make: async (dir) => {
      const md = path.join(dir, 'report.md');
      fs.writeFileSync(md, '# Quarterly report\n\nThe heron count rose by a third.\n');
      execFileSync('pandoc', [md, '-o', path.join(dir, 'report.docx')]);
      return fs.readFileSync(path.join(dir, 'report.docx'));
    },
    says: /heron count rose by a third/,
    chip: /^\d+ characters of text$/,
  },
  {
    name: 'bundle.zip',
    word: 'otter',
    kind: 'text',
    skip: missing.includes('zip') ? 'zip' : undefined,
    make: async (dir) => {
      const src = path.join(dir, 'bundle');
      fs.mkdirSync(src);
      fs.writeFileSync(path.join(src, 'readme.txt'), 'The otter den is by the old mill.\n');
      fs.writeFileSync(path.join(src, 'data.bin'), Buffer.from([0, 1, 2, 3, 0, 0, 0xff]));
      execFileSync('zip', ['-q', '-r', path.join(dir, 'bundle.zip'), 'bundle'], { cwd: dir });
      return fs.readFileSync(path.join(dir, 'bundle.zip'));
    },
    says: /otter den is by the old mill/,
    chip: /^file list of 2 files, 1 text file inline$/,
  },
  {
    name: 'memo.wav',
    word: 'settings',
    kind: 'text',
    skip: missing.includes('flite') ? 'flite' : !speech ? 'the speech model' : undefined,
    make: async (dir) => {
      const wav = path.join(dir, 'memo.wav');
      await synthFlite('Please open the settings window and change the language to English.', 'slt', wav);
      return fs.readFileSync(wav);
    },
    says: /settings window/i,
    chip: /^transcript, \d+ words$/,
  },
];

let srv: TestServer;
let agent: FakeAgent;
let client: Client;
let dir: string;

/** One turn run to its end (reading attachments takes seconds: OCR, a PDF's worker, transcription); the request
 *  the agent received for it. */
async function turn(body: Record<string, unknown>): Promise<{ messages: { role: string; content: string | AgentPart[] }[] }> {
  agent.next(reply('ok'));
  const before = agent.requests.length;
  const res = await srv.json('/api/chat/start', body);
  const started = (await res.json()) as { stream_id: string };
  expect(res.status, JSON.stringify(started)).toBe(200);
  await (await openSse(srv.port, `/api/chat/stream?stream_id=${started.stream_id}`)).ended(CASE_TIMEOUT_MS);
  const sent = agent.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'));
  expect(sent).toHaveLength(1);
  return sent[0]!.body as { messages: { role: string; content: string | AgentPart[] }[] };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-agree-'));
  agent = await startFakeAgent({ apiKey: AGENT_KEY });
  srv = await startTestServer();
  expect((await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: AGENT_KEY, model: 'fake-model', kind: 'openai' })).status).toBe(200);
  client = new Client({ name: 'agree', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_MCP_TOKEN}` } } }));
});

afterAll(async () => {
  await client?.close();
  await srv?.stop();
  await agent?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

type AgentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
type McpItem = { type: string; text?: string; data?: string; mimeType?: string };

describe('the agent, MCP, the chip, the preview and search agree on what a file is and says', () => {
  for (const f of FIXTURES) {
    it.skipIf(f.skip !== undefined)(`${f.name} (${f.kind})`, { timeout: CASE_TIMEOUT_MS }, async () => {
      const sessionId = await srv.newSession();
      const up = await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: sessionId }, { name: 'file', filename: f.name, content: await f.make(dir) }]);
      expect(up.status).toBe(200);
      const attachment = up.body as { filename: string; path: string; is_image: boolean };
      expect(attachment.filename).toBe(f.name);
      // The upload's image flag (the page's thumbnail) says what the bytes are too.
      expect(attachment.is_image).toBe(f.kind === 'image');

      // The agent: the turn's last user message, this attachment's parts after the person's words.
      const { messages } = await turn({ session_id: sessionId, message: 'Read this.', attachments: [attachment] });
      const parts = messages.at(-1)!.content as AgentPart[];
      const agentText = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n\n');
      const agentImages = parts.filter((p) => p.type === 'image_url');

      // MCP's read_attachment.
      const read = await client.callTool({ name: 'read_attachment', arguments: { session_id: sessionId, name: f.name } });
      expect(read.isError).toBeFalsy();
      const items = read.content as McpItem[];
      const mcpImages = items.filter((i) => i.type === 'image');
      const mcpTexts = items.filter((i) => i.type === 'text').map((i) => i.text!);

      // The chip.
      const chipRes = await srv.api(`/api/attachment/summary?${new URLSearchParams({ session_id: sessionId, name: f.name })}`);
      expect(chipRes.status).toBe(200);
      const chip = (await chipRes.json()) as { state: string; text: string };

      // Kind: an image to both, or text to both.
      expect(agentImages.length > 0, 'the agent got an image').toBe(f.kind === 'image');
      expect(mcpImages.length > 0, 'MCP returned an image').toBe(f.kind === 'image');
      expect(chip.text, JSON.stringify({ agentText, mcpTexts })).toMatch(f.chip);
      expect(chip.state).not.toBe('unreadable');
      // MCP says what the agent gets in the chip's own words (agent_view).
      expect(mcpTexts).toContain(`agent_view: ${chip.state}: ${chip.text}`);

      // Text: the words are there for each, and MCP's text is what the agent got (the agent's has a header).
      const mcpText = f.kind === 'image' ? mcpTexts.find((t) => t.startsWith(`Text recognized in "${f.name}"`))! : mcpTexts[0]!;
      expect(agentText).toMatch(f.says);
      expect(mcpText).toMatch(f.says);
      expect(agentText).toContain(mcpText.trimEnd());
      if (f.kind === 'image') expect(mcpImages[0]!.mimeType).toMatch(/^image\//);

      // The preview: an image is drawn; otherwise it shows the words, as the file's own text or, where that is
      // not what the agent gets (a scan, an archive, a recording), as what the agent gets, in the chip's words.
      const previewRes = await srv.api(`/api/attachment/preview?${new URLSearchParams({ session_id: sessionId, name: f.name })}`, { signal: AbortSignal.timeout(CASE_TIMEOUT_MS) });
      expect(previewRes.status).toBe(200);
      const preview = (await previewRes.json()) as { kind: string; text?: string; agent?: { state: string; summary: string; text: string } };
      if (f.kind === 'image') expect(preview.kind).toBe('image');
      else expect(preview.agent?.text ?? preview.text).toMatch(f.says);
      if (preview.agent) expect(preview.agent.summary).toBe(chip.text);

      // Search finds a word the agent was sent, in this attachment.
      await waitUntil(async () => {
        const found = (await (await srv.api(`/api/search?q=${encodeURIComponent(f.word)}`)).json()) as { results: { session_id: string; attachment?: string }[] };
        return found.results.some((r) => r.session_id === sessionId && r.attachment === f.name);
      }, `search to find "${f.word}" in ${f.name}`);
    });
  }
});
