// Issue 33, finding 5: keys inside Word, Excel and PowerPoint files. The Office → Markdown sidecar writes `ghp_…`
// as `ghp\_…` and Word quotes `"api_key"` as `“api_key”`; the rules must still see the key a person sees. The same
// keys in a .txt, a .docx, .xlsx and .pptx made by pandoc and by LibreOffice, and a PDF made by LibreOffice, come
// out masked, the same mask in each, in every place text leaves: the attachment and workspace previews, the chip,
// MCP read_attachment, read_workspace_file and search, and the REST search after a turn sent the text; and the
// same files arriving through the Inbox.
// Tools missing: the files they would make are skipped, saying why.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SOFFICE, SOFFICE_MISSING, sofficeConvert } from '../office/testing/soffice.js';
import { unescapeMarkdown } from '../redact/markdown-escapes.js';
import { postMultipart, startTestServer, TEST_TOKEN, waitUntil, type TestServer } from '../testing/harness.js';
import { INBOX_TITLE } from '../inbox/session.js';
import { scriptedAgent, TEST_AGENT_CONFIG, type ScriptedAgent } from '../testing/scripted-agent.js';

const run = promisify(execFile);
const PANDOC = ['/usr/bin/pandoc', '/usr/local/bin/pandoc'].find((p) => existsSync(p)) ?? null;
const PANDOC_MISSING = 'pandoc is not installed: apt-get install pandoc';
const TOOL_TIMEOUT_MS = 120_000;

/** Each key, and what the same key in a plain text file becomes (redaction.md "Mask"). */
const KEYS = [
  { label: 'GitHub', key: 'ghp_Q7abcdefghijklmnopqrstuvVbNm', mask: 'ghp_Q7...VbNm' },
  { label: 'Token', key: 'github_pat_11AZQ7WXYV0kLmNoPqRsTu_vWxYzAbCdEfGhIjKLMNOP', mask: 'github...MNOP' },
  { label: 'Stripe', key: 'sk_live_51Habcdefghijklmnopqrst', mask: 'sk_liv...qrst' },
  { label: 'Hugging', key: 'hf_abcdefghijklmnopqrstuvwxyz', mask: 'hf_abc...wxyz' },
] as const;
const FIELD_VALUE = 'abc123def456ghi789xyz';
const FIELD_MASK = 'abc123...9xyz';
/** Parts of every secret that no mask keeps: none may come out anywhere. */
const SECRET_MIDDLES = [...KEYS.map((k) => k.key.slice(7, -5)), FIELD_VALUE.slice(6, -4)];
const WORD = 'ptarmigan';

const LINES = [...KEYS.map((k) => `${k.label} ${WORD} ${k.key}`), `Config ${WORD} "api_key": "${FIELD_VALUE}"`];

/** What a person reads of an output: Markdown escapes read back (a plain text has none to read). */
const shown = (text: string) => unescapeMarkdown(text).copy;

/** Every key masked exactly as in a plain text, none of any secret left, in an output holding all of the text. */
function expectAllMasked(out: string, where: string): void {
  const seen = shown(out);
  for (const k of KEYS) expect(seen, `${where}: ${k.label}`).toContain(`${k.label} ${WORD} ${k.mask}`);
  // pandoc makes Word's typographic quotes of `"…"`; LibreOffice keeps what it is given.
  expect(seen, `${where}: api_key`).toMatch(new RegExp(`["“”]api_key["“”]: ["“”]${FIELD_MASK.replace(/\./g, '\\.')}["“”]`));
  expectNoSecret(out, where);
}

function expectNoSecret(out: string, where: string): void {
  for (const middle of SECRET_MIDDLES) expect(shown(out), where).not.toContain(middle);
  for (const middle of SECRET_MIDDLES) expect(out.replace(/\\/g, ''), where).not.toContain(middle);
}

interface Made {
  /** The stored name (its name in the attachment folder and the workspace). */
  name: string;
  bytes: Buffer;
  /** Markdown (an Office sidecar) rather than plain text. */
  office: boolean;
}

let srv: TestServer;
let agent: ScriptedAgent;
let client: Client;
let work: string;
let session: string;
let inboxDir: string;
/** The Inbox's timings shortened, as its own tests do (inbox/rules.ts). */
const INBOX_TIMINGS = { settleMs: 200, pollMs: 50, rescanMs: 300 };
const made: Made[] = [];
const skipped: string[] = [];

async function pandoc(source: string, out: string): Promise<void> {
  await run(PANDOC!, [source, '-f', 'markdown+smart', '-o', out], { timeout: TOOL_TIMEOUT_MS });
}

async function makeFiles(): Promise<void> {
  const text = LINES.join('\n') + '\n';
  made.push({ name: 'keys.txt', bytes: Buffer.from(text), office: false });
  // Blank lines between: one paragraph (or bullet) per line in every format.
  const md = path.join(work, 'keys.md');
  await fs.writeFile(md, LINES.join('\n\n') + '\n');
  if (PANDOC) {
    await pandoc(md, path.join(work, 'pandoc.docx'));
    made.push({ name: 'pandoc.docx', bytes: await fs.readFile(path.join(work, 'pandoc.docx')), office: true });
    // A slide of bullets.
    const slides = path.join(work, 'slides.md');
    await fs.writeFile(slides, `# Keys\n\n${LINES.map((l) => `- ${l}`).join('\n')}\n`);
    await pandoc(slides, path.join(work, 'pandoc.pptx'));
    made.push({ name: 'pandoc.pptx', bytes: await fs.readFile(path.join(work, 'pandoc.pptx')), office: true });
  } else skipped.push(`pandoc files: ${PANDOC_MISSING}`);
  if (SOFFICE) {
    const dir = path.join(work, 'lo');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'calc.csv'), LINES.map((l) => `"${l.replace(/"/g, '""')}"`).join('\n') + '\n');
    await fs.writeFile(path.join(dir, 'writer.txt'), text);
    const [xlsx] = await sofficeConvert([path.join(dir, 'calc.csv')], 'xlsx', dir);
    const [docx] = await sofficeConvert([path.join(dir, 'writer.txt')], 'docx:MS Word 2007 XML', dir);
    const [pdf] = await sofficeConvert([path.join(dir, 'writer.txt')], 'pdf', dir);
    made.push({ name: 'calc.xlsx', bytes: await fs.readFile(xlsx!), office: true });
    made.push({ name: 'writer.docx', bytes: await fs.readFile(docx!), office: true });
    made.push({ name: 'writer.pdf', bytes: await fs.readFile(pdf!), office: false });
    if (PANDOC) {
      // LibreOffice's own PowerPoint file: pandoc's slides opened and saved again by Impress.
      const impress = path.join(dir, 'impress');
      await fs.mkdir(impress);
      await fs.copyFile(path.join(work, 'pandoc.pptx'), path.join(impress, 'impress.pptx'));
      const [pptx] = await sofficeConvert([path.join(impress, 'impress.pptx')], 'pptx', dir);
      made.push({ name: 'impress.pptx', bytes: await fs.readFile(pptx!), office: true });
    }
  } else skipped.push(`LibreOffice files: ${SOFFICE_MISSING}`);
  for (const reason of skipped) console.log(`office-keys: skipped ${reason}`);
}

const toolText = (result: unknown) => ((result as { content: { text?: string }[] }).content[0]?.text) ?? '';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-office-keys-'));
  await makeFiles();
  agent = scriptedAgent();
  inboxDir = path.join(work, 'inbox');
  await fs.mkdir(inboxDir);
  srv = await startTestServer({ agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG }, inbox: INBOX_TIMINGS, inboxFolders: [inboxDir] });
  session = await srv.newSession();
  const uploaded: Json[] = [];
  for (const f of made) {
    const up = await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: session }, { name: 'file', filename: f.name, content: f.bytes }]);
    expect(up.status, f.name).toBe(200);
    expect((up.body as Json).filename).toBe(f.name);
    uploaded.push(up.body as Json);
    await fs.writeFile(path.join(srv.workspace, f.name), f.bytes);
  }
  // A turn sends every file's text to the agent, which indexes it for search.
  const res = await srv.json('/api/chat/start', { session_id: session, message: 'read these', attachments: uploaded });
  expect(res.status).toBe(200);
  const turn = await agent.turn(0, 180_000);
  turn.push({ kind: 'token', text: 'Read.' });
  turn.finish();
  // The turn wrote each Office file's sidecar; one goes into the workspace too, as a workspace upload leaves it
  // beside its document: a Markdown text file any workspace read shows.
  for (const [i, f] of made.entries()) {
    if (!f.office) continue;
    const sidecar = `${uploaded[i]!.path}.md`;
    await waitUntil(async () => existsSync(sidecar), `the sidecar of ${f.name}`, 60_000);
    await fs.copyFile(sidecar, path.join(srv.workspace, `${f.name}.md`));
  }
  client = new Client({ name: 'probe', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
}, 600_000);

afterAll(async () => {
  await client?.close();
  await srv?.stop();
  await fs.rm(work, { recursive: true, force: true });
});

describe('the same keys in a text file, Office files and a PDF', () => {
  it('the agent was sent the files (the turn read them all)', () => {
    expect(made.map((f) => f.name)).toContain('keys.txt');
    // Every file the installed tools can make was made (a missing tool is named in the log above).
    expect(made).toHaveLength(1 + (PANDOC ? 2 : 0) + (SOFFICE ? 3 : 0) + (PANDOC && SOFFICE ? 1 : 0));
    expect(agent.turns).toHaveLength(1);
  });

  it('are masked alike in the attachment preview', async () => {
    for (const f of made.filter((m) => m.name.endsWith('.pdf') === false)) {
      const res = await srv.api(`/api/attachment/preview?${new URLSearchParams({ session_id: session, name: f.name })}`);
      expect(res.status, f.name).toBe(200);
      const body = (await res.json()) as Json;
      expectAllMasked(String(body.text ?? body.markdown ?? ''), `attachment preview of ${f.name}`);
      expectNoSecret(JSON.stringify(body), f.name);
    }
  });

  it('are masked alike in the workspace preview', async () => {
    for (const f of made.filter((m) => m.name.endsWith('.pdf') === false)) {
      for (const name of f.office ? [f.name, `${f.name}.md`] : [f.name]) {
        const res = await srv.api(`/api/workspace/preview?${new URLSearchParams({ session_id: session, path: name })}`);
        expect(res.status, name).toBe(200);
        const body = (await res.json()) as Json;
        expectAllMasked(String(body.text ?? ''), `workspace preview of ${name}`);
      }
    }
  });

  it('are masked alike in MCP read_attachment and read_workspace_file, and in the chip', async () => {
    for (const f of made) {
      const read = toolText(await client.callTool({ name: 'read_attachment', arguments: { session_id: session, name: f.name } }));
      expectAllMasked(read, `read_attachment ${f.name}`);
      const chip = await (await srv.api(`/api/attachment/summary?${new URLSearchParams({ session_id: session, name: f.name })}`)).text();
      expectNoSecret(chip, `chip of ${f.name}`);
      if (f.name.endsWith('.pdf')) continue;
      const ws = toolText(await client.callTool({ name: 'read_workspace_file', arguments: { session_id: session, path: f.name } }));
      // read_workspace_file reads text files; an Office file is binary there (its name and size only).
      if (f.office) {
        expectNoSecret(ws, `read_workspace_file ${f.name}`);
        const sidecar = toolText(await client.callTool({ name: 'read_workspace_file', arguments: { session_id: session, path: `${f.name}.md` } }));
        expectAllMasked(sidecar, `read_workspace_file ${f.name}.md`);
      } else expectAllMasked(ws, `read_workspace_file ${f.name}`);
    }
  });

  it('are masked in every search snippet, REST and MCP, and no key finds its file', async () => {
    await waitUntil(async () => {
      const results = ((await (await srv.api(`/api/search?q=${WORD}`)).json()) as Json).results as Json[];
      return made.every((f) => results.some((r) => r.attachment === f.name));
    }, 'every file indexed');
    for (const q of [WORD, 'GitHub', 'Stripe', 'Config api']) {
      const rest = await (await srv.api(`/api/search?q=${encodeURIComponent(q)}`)).text();
      expectNoSecret(rest, `REST search ${q}`);
      const mcp = toolText(await client.callTool({ name: 'search', arguments: { session_id: session, query: q } }));
      expectNoSecret(mcp, `MCP search ${q}`);
    }
    const rest = ((await (await srv.api(`/api/search?q=Stripe`)).json()) as Json).results as Json[];
    for (const f of made) {
      const hit = rest.find((r) => r.attachment === f.name);
      expect(hit, f.name).toBeDefined();
      // The snippet is cut a few words after the match, inside the mask at the latest.
      expect(shown((hit!.snippet as { text: string }[]).map((s) => s.text).join('')), f.name).toMatch(/Stripe ptarmigan (sk…|sk_liv…|sk_liv\.\.\.qrst)/);
    }
    for (const k of KEYS) {
      const found = ((await (await srv.api(`/api/search?q=${encodeURIComponent(k.key.slice(8, 20))}`)).json()) as Json).results as Json[];
      expect(found, k.label).toEqual([]);
    }
  });

  it('arriving through the Inbox, are masked alike in its conversation (preview and MCP)', async () => {
    for (const f of made) await fs.writeFile(path.join(inboxDir, f.name), f.bytes);
    let inbox = '';
    await waitUntil(async () => {
      const list = ((await (await srv.api('/api/sessions')).json()) as Json).sessions as Json[];
      inbox = list.find((x) => x.title === INBOX_TITLE)?.session_id ?? '';
      if (!inbox) return false;
      const held = ((await (await srv.api(`/api/session?session_id=${inbox}`)).json()) as Json).session.attachments as Json[];
      return made.every((f) => held.some((a) => a.filename === f.name));
    }, 'every file arrived in the Inbox', 60_000);
    for (const f of made) {
      expectAllMasked(toolText(await client.callTool({ name: 'read_attachment', arguments: { session_id: inbox, name: f.name } })), `Inbox read_attachment ${f.name}`);
      if (f.name.endsWith('.pdf')) continue;
      const res = await srv.api(`/api/attachment/preview?${new URLSearchParams({ session_id: inbox, name: f.name })}`);
      expect(res.status, f.name).toBe(200);
      expectAllMasked(String(((await res.json()) as Json).text ?? ''), `Inbox preview of ${f.name}`);
    }
  });
});
