// The two kinds of string (projections/brand.ts) against a live server: every value the UI sends back (an
// attachment object, a session id, a workspace root, a workspace path, an extraction folder, a profile name) comes
// back exactly as it is on disk even when it looks like a credential, and sending it back works; free text (titles,
// messages, agent replies) is still masked, in the JSON answers, in both event streams and in the MCP results.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { attachmentRoot } from '../attachments/layout.js';
import { postMultipart, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { scriptedAgent, TEST_AGENT_CONFIG, type ScriptedAgent } from '../testing/scripted-agent.js';
import { openSse } from '../testing/sse.js';
import { storedSessionText } from '../testing/stored-session.js';

// Names that look like credentials to the redactor (vendor prefixes, an AWS key id), as a person may name files.
const SK_LEARN = 'sk-learn-cheatsheet.pdf';
const GHP_NAME = `ghp_${'Q7wE9rT2yU4iO6pA8sD0fG1hJ3kL5zX7cV9bNm'.slice(0, 36)}.txt`;
const AKIA_NAME = 'AKIAIOSFODNN7EXAMPLE-notes.md';
const HF_WORKSPACE = 'hf_transformers_finetune';
const HF_PROFILE = 'hf_transformersprofile';
// A real-looking key in free text: never sent back as it is.
const SECRET = `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`;

let srv: TestServer;
let agent: ScriptedAgent;
let turns = 0;

beforeAll(async () => {
  agent = scriptedAgent();
  srv = await startTestServer({ agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
});

afterAll(async () => {
  await srv.stop();
});

async function upload(sessionId: string, filename: string, content: string | Buffer, route = '/api/upload', extra: { name: string; content: string }[] = []) {
  return postMultipart(srv, route, [{ name: 'session_id', content: sessionId }, ...extra, { name: 'file', filename, content }]);
}

async function getSession(id: string) {
  const res = await srv.api(`/api/session?session_id=${id}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { session: Record<string, any> }).session; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('values the UI sends back round-trip unchanged', () => {
  it.each([SK_LEARN, GHP_NAME, AKIA_NAME])('an uploaded attachment named %s: its path is the file on disk, and a message may carry it', async (name) => {
    const id = await srv.newSession();
    const bytes = Buffer.from(`%PDF-1.4 bytes of ${name}\n`);
    const up = await upload(id, name, bytes);
    expect(up.status).toBe(200);
    const dir = path.join(attachmentRoot(srv.stateDir), id);
    expect(up.body).toEqual({ filename: name, path: path.join(dir, name), size: bytes.length, mime: expect.any(String), is_image: false });
    expect(await fs.readdir(dir)).toContain(name);
    expect(await fs.readFile(up.body.path)).toEqual(bytes);

    // What the UI does with it: the exact object as a message attachment.
    const sent = await srv.json('/api/session/message', { session_id: id, text: 'see attached', attachments: [up.body] });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const session = await getSession(id);
    expect(session.attachments).toEqual([up.body]);
    expect(session.messages[0].attachments).toEqual([{ ...up.body, kind: 'file' }]);
  });

  it('a chat turn accepts the attachment object as the upload answered it', async () => {
    const id = await srv.newSession();
    const up = await upload(id, SK_LEARN, 'cheats');
    const res = await srv.json('/api/chat/start', { session_id: id, message: 'summarize', attachments: [up.body] });
    expect(res.status, await res.clone().text()).toBe(200);
    const started = (await res.json()) as { stream_id: string; session_id: string };
    expect(started.session_id).toBe(id);
    const upstream = await agent.turn(turns++);
    upstream.push({ kind: 'token', text: 'done' });
    upstream.finish();
    const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${started.stream_id}`, { Authorization: `Bearer ${TEST_TOKEN}` });
    await stream.until((f) => f.event === 'done');
    stream.close();
    const session = await getSession(id);
    expect(session.messages[0].attachments).toEqual([{ ...up.body, kind: 'file' }]);
    expect(session.attachments).toEqual([up.body]);
  });

  it('an extracted archive: dest and file names are the ones on disk, and a message may carry the folder', async () => {
    const id = await srv.newSession();
    const work = await fs.mkdtemp(path.join(srv.tmp, 'zip-'));
    await fs.writeFile(path.join(work, GHP_NAME), 'inner');
    const zipPath = path.join(work, 'sk-learn-datasets.zip');
    execFileSync('zip', ['-q', '-j', zipPath, path.join(work, GHP_NAME)]);
    const up = await upload(id, 'sk-learn-datasets.zip', await fs.readFile(zipPath), '/api/upload/extract');
    expect(up.status).toBe(200);
    expect(up.body.dest).toBe(path.join(attachmentRoot(srv.stateDir), id, 'sk-learn-datasets'));
    expect(up.body.files).toEqual([`sk-learn-datasets/${GHP_NAME}`]);
    expect(await fs.readFile(path.join(attachmentRoot(srv.stateDir), id, up.body.files[0]), 'utf8')).toBe('inner');
    const sent = await srv.json('/api/session/message', { session_id: id, text: '', attachments: [{ name: 'sk-learn-datasets.zip', path: up.body.dest, extracted: true }] });
    expect(sent.status, await sent.clone().text()).toBe(200);
  });

  it('a workspace root named hf_…: added, listed, and a session is created in it', async () => {
    const root = path.join(srv.tmp, HF_WORKSPACE);
    await fs.mkdir(root);
    const added = await srv.json('/api/workspaces/add', { path: root });
    expect(added.status).toBe(200);
    const { workspaces } = (await added.json()) as { workspaces: string[] };
    expect(workspaces).toContain(root);
    const listed = (await (await srv.api('/api/workspaces')).json()) as { workspaces: string[] };
    expect(listed.workspaces).toContain(root);
    const created = await srv.json('/api/session/new', { workspace: listed.workspaces.find((w) => w.endsWith(HF_WORKSPACE)) });
    expect(created.status, await created.clone().text()).toBe(200);
    const { session } = (await created.json()) as { session: { session_id: string; workspace: string } };
    expect(session.workspace).toBe(root);
    const sessions = (await (await srv.api('/api/sessions')).json()) as { sessions: { session_id: string; workspace: string }[] };
    expect(sessions.sessions.find((s) => s.session_id === session.session_id)?.workspace).toBe(root);
  });

  it('a workspace file named ghp_…: uploaded, listed, and previewed by the listed name (exact bytes)', async () => {
    const root = path.join(srv.tmp, `${HF_WORKSPACE}_files`);
    await fs.mkdir(root);
    expect((await srv.json('/api/workspaces/add', { path: root })).status).toBe(200);
    const id = await srv.newSession({ workspace: root });
    await fs.mkdir(path.join(root, 'sk-learn-notes'));
    const up = await upload(id, GHP_NAME, 'plain words\n', '/api/workspace/upload', [{ name: 'path', content: 'sk-learn-notes' }]);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ filename: GHP_NAME, path: path.join(root, 'sk-learn-notes', GHP_NAME) });
    const top = (await (await srv.api(`/api/workspace/list?session_id=${id}&path=`)).json()) as { entries: { name: string }[] };
    const folder = top.entries.find((e) => e.name.startsWith('sk-'))!.name;
    expect(folder).toBe('sk-learn-notes');
    const inner = (await (await srv.api(`/api/workspace/list?session_id=${id}&path=${encodeURIComponent(folder)}`)).json()) as {
      path: string;
      entries: { name: string }[];
    };
    expect(inner.path).toBe(folder);
    expect(inner.entries.map((e) => e.name)).toEqual([GHP_NAME]);
    const file = await srv.api(`/api/workspace/file?session_id=${id}&path=${encodeURIComponent(`${inner.path}/${inner.entries[0]!.name}`)}`);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(Buffer.from('plain words\n'));
  });

  it('a profile named hf_…: listed exactly, and switching to it works', async () => {
    await srv.newSession({ profile: HF_PROFILE });
    const { profiles } = (await (await srv.api('/api/profiles')).json()) as { profiles: string[] };
    expect(profiles).toContain(HF_PROFILE);
    const switched = await srv.json('/api/profile/switch', { name: profiles.find((p) => p.startsWith('hf_')) });
    expect(switched.status).toBe(200);
    expect(await switched.json()).toEqual({ ok: true, active: HF_PROFILE });
    const cookie = switched.headers.get('set-cookie')!.split(';')[0]!;
    const config = (await (await srv.api('/api/config', { headers: { Cookie: cookie } })).json()) as { profile: string };
    expect(config.profile).toBe(HF_PROFILE);
  });

  it('the event stream carries the stored path and the workspace as they are', async () => {
    const events = await openSse(srv.port, '/api/events', { Authorization: `Bearer ${TEST_TOKEN}` });
    try {
      const root = path.join(srv.tmp, HF_WORKSPACE);
      const id = await srv.newSession({ workspace: root });
      const created = await events.until((f) => f.event === 'session_created' && f.data!.includes(id));
      expect(JSON.parse(created.data!).session.workspace).toBe(root);
      const up = await upload(id, SK_LEARN, 'x');
      const added = await events.until((f) => f.event === 'attachment_added' && f.data!.includes(id));
      expect(JSON.parse(added.data!).attachment).toEqual(up.body);
    } finally {
      events.close();
    }
  });
});

describe('free text is still masked', () => {
  it('a title and a message with a key: masked in GET /api/session, /api/sessions and the event stream', async () => {
    const events = await openSse(srv.port, '/api/events', { Authorization: `Bearer ${TEST_TOKEN}` });
    try {
      const id = await srv.newSession();
      const renamed = await srv.json('/api/session/rename', { session_id: id, title: `deploy with ${SECRET}` });
      expect(renamed.status).toBe(200);
      expect(await renamed.text()).not.toContain(SECRET);
      expect((await srv.json('/api/session/message', { session_id: id, text: `the key is ${SECRET}` })).status).toBe(200);
      const session = await getSession(id);
      expect(session.title).toBe(`deploy with ${SECRET.slice(0, 6)}...${SECRET.slice(-4)}`);
      expect(session.messages[0].content).toBe(`the key is ${SECRET.slice(0, 6)}...${SECRET.slice(-4)}`);
      expect(await (await srv.api('/api/sessions')).text()).not.toContain(SECRET);
      const event = await events.until((f) => f.event === 'session_renamed' && f.data!.includes(id));
      expect(JSON.parse(event.data!).title).toBe(session.title);
      // On disk the person's own text is kept whole: redaction is on the way out.
      expect(await storedSessionText(srv.stateDir, id)).toContain(SECRET);
    } finally {
      events.close();
    }
  });

  it('an agent reply with a key is masked in the chat stream and the stored session as answered', async () => {
    const id = await srv.newSession();
    const res = await srv.json('/api/chat/start', { session_id: id, message: `use ${SECRET}` });
    expect(res.status).toBe(200);
    const { stream_id } = (await res.json()) as { stream_id: string };
    const upstream = await agent.turn(turns++);
    upstream.push({ kind: 'token', text: `ok, ${SECRET} noted` });
    upstream.finish();
    const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${stream_id}`, { Authorization: `Bearer ${TEST_TOKEN}` });
    await stream.until((f) => f.event === 'stream_end');
    stream.close();
    const all = stream.blocks.map((b) => b.data ?? '').join('\n');
    expect(all).not.toContain(SECRET);
    expect(all).toContain(`${SECRET.slice(0, 6)}...${SECRET.slice(-4)}`);
  });

  it('the MCP tools mask titles and messages and keep names: list_sessions, read_session, list_workspace, read_workspace_file', async () => {
    const root = path.join(srv.tmp, `${HF_WORKSPACE}_mcp`);
    await fs.mkdir(root);
    await fs.writeFile(path.join(root, GHP_NAME), 'mcp words\n');
    expect((await srv.json('/api/workspaces/add', { path: root })).status).toBe(200);
    const id = await srv.newSession({ workspace: root });
    await srv.json('/api/session/rename', { session_id: id, title: `mcp ${SECRET}` });
    await srv.json('/api/session/message', { session_id: id, text: `mcp message ${SECRET}` });
    await upload(id, SK_LEARN, 'pdf-ish text');

    const client = new Client({ name: 'roundtrip', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
    try {
      const text = (r: unknown) => ((r as { content: { text?: string }[] }).content[0]?.text ?? '');
      const listed = text(await client.callTool({ name: 'list_sessions', arguments: {} }));
      expect(listed).not.toContain(SECRET);
      const row = (JSON.parse(listed) as { session_id: string; workspace: string; title: string }[]).find((s) => s.session_id === id)!;
      expect(row.workspace).toBe(root);
      expect(row.title).toBe(`mcp ${SECRET.slice(0, 6)}...${SECRET.slice(-4)}`);
      const read = text(await client.callTool({ name: 'read_session', arguments: { session_id: id } }));
      expect(read).not.toContain(SECRET);
      expect(JSON.parse(read).attachments.map((a: { name: string }) => a.name)).toEqual([SK_LEARN]);
      expect(text(await client.callTool({ name: 'read_attachment', arguments: { session_id: id, name: SK_LEARN } }))).toBe('pdf-ish text');
      const ws = JSON.parse(text(await client.callTool({ name: 'list_workspace', arguments: { session_id: id } }))) as { entries: { name: string }[] };
      expect(ws.entries.map((e) => e.name)).toEqual([GHP_NAME]);
      expect(text(await client.callTool({ name: 'read_workspace_file', arguments: { session_id: id, path: ws.entries[0]!.name } }))).toBe('mcp words\n');
    } finally {
      await client.close();
    }
  });
});
