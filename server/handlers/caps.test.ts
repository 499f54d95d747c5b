// A full conversation is refused, not dropped (issue 33, finding 9; issue 35: one rule per cap, every caller): at
// the attachment cap an upload is a 400 with the cap's sentence and nothing is written; at the message cap a
// message, a turn, a capture and an Inbox file are refused alike, nothing moved or stored; a turn is refused while
// it could not store all its rows; a turn and a capture refuse the same 21st file. Each over a real server started
// on a state folder that already holds the full conversation.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { capRefusal, MAX_ATTACHMENTS_PER_SESSION, MAX_MESSAGE_ATTACHMENTS, MAX_MESSAGES_PER_SESSION, MAX_TURN_ATTACHMENTS, ROWS_PER_TURN } from '../store/caps.js';
import type { Attachment, Message } from '../store/sessions.js';
import { MAX_VERSIONS_PER_MESSAGE, withNewVersion } from '../store/versions.js';
import { setLogSink } from '../core/log.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';
import { scriptedAgent, TEST_AGENT_CONFIG } from '../testing/scripted-agent.js';
import { openStore } from '../testing/fresh-store.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let server: TestServer | undefined;
let stateRoot: string | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (stateRoot) await fs.rm(stateRoot, { recursive: true, force: true });
  stateRoot = undefined;
});

const ID = 'c0ffee000001';

/**
 * A state folder holding one conversation with `attachments` uploads and `messages` rows. The uploads' files are
 * not made (ten thousand of them took 16 s here): each upload is named by a stored message instead, as a sent one
 * is, so the start-up sweep leaves its record alone without looking for its file.
 */
async function stateWith(counts: { attachments?: number; messages?: number; rows?: Message[] }, title = 'Full'): Promise<string> {
  stateRoot = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-caps-')));
  const stateDir = path.join(stateRoot, 'state');
  await fs.mkdir(stateDir, { mode: 0o700 });
  const store = await openStore(stateDir);
  const folder = path.join(stateDir, 'attachments', ID);
  const attachments: Attachment[] = Array.from({ length: counts.attachments ?? 0 }, (_, i) => ({
    // Images: the search index's background pass has no text to read from them, so it does not hold the database up.
    filename: `f${i}.png`, path: path.join(folder, `f${i}.png`), size: 1, mime: 'image/png', is_image: true,
  }));
  const messages: Message[] = counts.rows?.slice() ?? Array.from({ length: counts.messages ?? 0 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}`, timestamp: 1_800_000_000 + i }));
  for (let i = 0; i < attachments.length; i += 100) {
    const files = attachments.slice(i, i + 100).map((a) => ({ ...a, kind: 'file' as const }));
    messages.push({ role: 'user', content: `files ${i}`, timestamp: 1_800_000_000 + i, attachments: files });
  }
  const now = new Date().toISOString();
  await store.insert({ session_id: ID, title, workspace: stateRoot, profile: 'default', created_at: now, updated_at: now, messages, attachments });
  await store.close();
  return stateDir;
}

async function start(stateDir: string, extra: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  server = await startTestServer({ stateDir, ...extra });
  return server;
}

const listing = (dir: string) => fs.readdir(dir).catch(() => [] as string[]);
const upload = (s: TestServer, name: string) =>
  postMultipart(s, '/api/upload', [{ name: 'session_id', content: ID }, { name: 'file', filename: name, content: `bytes of ${name}` }]);
const sessionOf = async (s: TestServer): Promise<Json> => ((await (await s.api(`/api/session?session_id=${ID}`)).json()) as Json).session as Json;

describe('a full conversation is refused, not dropped', () => {
  it('an upload at the attachment cap: 400 with the sentence, no file stored, nothing in staging', async () => {
    const stateDir = await stateWith({ attachments: MAX_ATTACHMENTS_PER_SESSION });
    const s = await start(stateDir);
    const { status, body } = await upload(s, 'report.txt');
    expect([status, body.error]).toEqual([400, capRefusal('attachments')]);
    expect(body.error).toBe('This conversation already has 10,000 attachments, the most Satchel keeps; start a new conversation for more files');
    expect(await listing(path.join(stateDir, 'attachments', ID))).toEqual([]);
    expect(await listing(path.join(stateDir, 'staging'))).toEqual([]);
    expect((await sessionOf(s)).attachments).toHaveLength(MAX_ATTACHMENTS_PER_SESSION);
  });

  it('two uploads racing for the last place: one is stored and recorded, the other refused with no file left', async () => {
    const stateDir = await stateWith({ attachments: MAX_ATTACHMENTS_PER_SESSION - 1 });
    const s = await start(stateDir);
    const answers = await Promise.all([upload(s, 'a.txt'), upload(s, 'b.txt')]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 400]);
    const stored = answers.find((a) => a.status === 200)!.body;
    expect(answers.find((a) => a.status === 400)!.body.error).toBe(capRefusal('attachments'));
    expect(await listing(path.join(stateDir, 'attachments', ID))).toEqual([stored.filename]);
    const records = (await sessionOf(s)).attachments as Json[];
    expect(records).toHaveLength(MAX_ATTACHMENTS_PER_SESSION);
    expect(records.at(-1)!.filename).toBe(stored.filename);
  });

  it('a message and a turn at the message cap: the same 400, nothing stored, no turn started', async () => {
    const stateDir = await stateWith({ messages: MAX_MESSAGES_PER_SESSION });
    const agent = scriptedAgent();
    const s = await start(stateDir, { agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
    const said = await s.json('/api/session/message', { session_id: ID, text: 'one more' });
    expect([said.status, ((await said.json()) as Json).error]).toEqual([400, capRefusal('messages')]);
    const turn = await s.json('/api/chat/start', { session_id: ID, message: 'one more' });
    expect([turn.status, ((await turn.json()) as Json).error]).toEqual([400, capRefusal('messages')]);
    const session = await sessionOf(s);
    expect(session.messages).toHaveLength(MAX_MESSAGES_PER_SESSION);
    expect(session.active_stream_id ?? null).toBeNull();
  });

  it('an Inbox file for a full Inbox conversation: refused and counted, the file left in the watched folder, none stored', async () => {
    const stateDir = await stateWith({ attachments: MAX_ATTACHMENTS_PER_SESSION }, 'Inbox');
    await fs.writeFile(path.join(stateDir, 'inbox-sessions.json'), JSON.stringify({ default: ID }));
    const s = await start(stateDir, { inbox: { settleMs: 200, pollMs: 50, rescanMs: 300 } });
    const watched = path.join(stateRoot!, 'Downloads');
    await fs.mkdir(watched);
    expect((await s.json('/api/inbox/folders', { add: watched })).status).toBe(200);
    await fs.writeFile(path.join(watched, 'scan.pdf'), '%PDF-1.4 not really');
    const deadline = Date.now() + 20_000;
    let counts: Json = {};
    while (Date.now() < deadline) {
      counts = ((await (await s.api('/api/inbox/folders')).json()) as Json).counts as Json;
      if (counts.refused > 0 || counts.arrived > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect([counts.refused, counts.arrived]).toEqual([1, 0]);
    expect(await listing(path.join(stateDir, 'attachments', ID))).toEqual([]);
    expect(await fs.readFile(path.join(watched, 'scan.pdf'), 'utf8')).toBe('%PDF-1.4 not really');
    expect((await sessionOf(s)).attachments).toHaveLength(MAX_ATTACHMENTS_PER_SESSION);
  });

  it('the message cap in words: the same sentence for every caller', () => {
    expect(capRefusal('messages')).toBe('This conversation is full (Satchel keeps at most 10,000 messages in one); start a new conversation to go on');
  });

  it('a turn that could not store all its rows within the cap is refused at its start; a message still fits', async () => {
    const stateDir = await stateWith({ messages: MAX_MESSAGES_PER_SESSION - ROWS_PER_TURN + 1 });
    const agent = scriptedAgent();
    const s = await start(stateDir, { agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
    const turn = await s.json('/api/chat/start', { session_id: ID, message: 'one more' });
    expect([turn.status, ((await turn.json()) as Json).error]).toEqual([400, capRefusal('messages')]);
    let session = await sessionOf(s);
    expect(session.messages).toHaveLength(MAX_MESSAGES_PER_SESSION - ROWS_PER_TURN + 1);
    expect(session.active_stream_id ?? null).toBeNull();
    const said = await s.json('/api/session/message', { session_id: ID, text: 'a note' });
    expect(said.status).toBe(200);
    session = await sessionOf(s);
    expect(session.messages.at(-1).content).toBe('a note');
  });

  it('a capture into a full conversation: the same 400, its staged upload not moved, no row', async () => {
    const stateDir = await stateWith({ messages: MAX_MESSAGES_PER_SESSION });
    const agent = scriptedAgent();
    const s = await start(stateDir, { agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
    const staging = await s.newSession();
    const staged = await postMultipart(s, '/api/upload', [{ name: 'session_id', content: staging }, { name: 'file', filename: 'shot.txt', content: 'staged bytes' }]);
    expect(staged.status).toBe(200);
    for (const reply of [false, true]) {
      const res = await s.json('/api/capture/send', { destination: 'current', session_id: ID, staging_session_id: staging, text: 'see this', attachments: [staged.body.path], reply });
      expect([res.status, ((await res.json()) as Json).error], `reply ${reply}`).toEqual([400, capRefusal('messages')]);
    }
    expect(await fs.readFile(staged.body.path, 'utf8')).toBe('staged bytes');
    expect(await listing(path.join(stateDir, 'attachments', ID))).toEqual([]);
    const session = await sessionOf(s);
    expect([session.messages.length, session.attachments.length]).toEqual([MAX_MESSAGES_PER_SESSION, 0]);
    expect(session.active_stream_id ?? null).toBeNull();
  });

  it('an Inbox file for an Inbox conversation at the message cap: refused and counted, left in its folder, none stored', async () => {
    const stateDir = await stateWith({ messages: MAX_MESSAGES_PER_SESSION }, 'Inbox');
    await fs.writeFile(path.join(stateDir, 'inbox-sessions.json'), JSON.stringify({ default: ID }));
    const lines: string[] = [];
    const restore = setLogSink((l) => lines.push(l));
    try {
      const s = await start(stateDir, { inbox: { settleMs: 200, pollMs: 50, rescanMs: 300 } });
      const watched = path.join(stateRoot!, 'Downloads');
      await fs.mkdir(watched);
      expect((await s.json('/api/inbox/folders', { add: watched })).status).toBe(200);
      await fs.writeFile(path.join(watched, 'notes.txt'), 'arrived text');
      const deadline = Date.now() + 20_000;
      let counts: Json = {};
      while (Date.now() < deadline) {
        counts = ((await (await s.api('/api/inbox/folders')).json()) as Json).counts as Json;
        if (counts.refused > 0 || counts.arrived > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect([counts.refused, counts.arrived]).toEqual([1, 0]);
      expect(await listing(path.join(stateDir, 'attachments', ID))).toEqual([]);
      expect(await fs.readFile(path.join(watched, 'notes.txt'), 'utf8')).toBe('arrived text');
      const session = await sessionOf(s);
      expect([session.messages.length, session.attachments.length]).toEqual([MAX_MESSAGES_PER_SESSION, 0]);
      expect(lines.some((l) => l.includes(`inbox: a file was refused: ${capRefusal('messages')}`))).toBe(true);
    } finally {
      restore();
    }
  });

  it(`a turn and a capture refuse the same ${MAX_TURN_ATTACHMENTS + 1}st file in the same words, nothing written`, async () => {
    const stateDir = await stateWith({});
    const agent = scriptedAgent();
    const s = await start(stateDir, { agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
    const one = await postMultipart(s, '/api/upload', [{ name: 'session_id', content: ID }, { name: 'file', filename: 'a.txt', content: 'a' }]);
    const many = Array.from({ length: MAX_TURN_ATTACHMENTS + 1 }, () => one.body.path as string);
    const turn = await s.json('/api/chat/start', { session_id: ID, message: 'look', attachments: many });
    const capture = await s.json('/api/capture/send', { destination: 'current', session_id: ID, staging_session_id: ID, text: 'look', attachments: many });
    for (const res of [turn, capture]) expect([res.status, ((await res.json()) as Json).error]).toEqual([400, capRefusal('turnAttachments')]);
    expect(capRefusal('turnAttachments')).toBe('Too many attachments (max 20)');
    expect(agent.turns).toHaveLength(0);
    const session = await sessionOf(s);
    expect([session.messages.length, session.attachments.length]).toEqual([0, 1]);
  });

  it(`a message and a draft refuse the same ${MAX_MESSAGE_ATTACHMENTS + 1}st file in the same words, nothing written`, async () => {
    const stateDir = await stateWith({});
    const s = await start(stateDir);
    const one = await postMultipart(s, '/api/upload', [{ name: 'session_id', content: ID }, { name: 'file', filename: 'a.txt', content: 'a' }]);
    const many = Array.from({ length: MAX_MESSAGE_ATTACHMENTS + 1 }, () => one.body.path as string);
    const said = await s.json('/api/session/message', { session_id: ID, text: 'look', attachments: many });
    const draft = await s.api('/api/session/draft', { method: 'PUT', body: JSON.stringify({ session_id: ID, text: 'look', attachments: many }), headers: { 'Content-Type': 'application/json' } });
    for (const res of [said, draft]) expect([res.status, ((await res.json()) as Json).error]).toEqual([400, capRefusal('messageAttachments')]);
    expect(capRefusal('messageAttachments')).toBe('Too many attachments (max 100)');
    expect((await sessionOf(s)).messages).toHaveLength(0);
    expect(await listing(path.join(stateDir, 'drafts'))).toEqual([]);
  });

  it(`a Regenerate and an Edit of a message with ${MAX_VERSIONS_PER_MESSAGE} versions: the same 400, nothing written`, async () => {
    let rows: Message[] = [{ role: 'user', content: 'Q', timestamp: 1_800_000_000 }, { role: 'assistant', content: 'A0', timestamp: 1_800_000_001 }];
    for (let i = 1; i < MAX_VERSIONS_PER_MESSAGE; i++) rows = withNewVersion(rows, 0, [{ role: 'user', content: 'Q', timestamp: 1_800_000_000 + i }, { role: 'assistant', content: `A${i}`, timestamp: 1_800_000_001 + i }]);
    const stateDir = await stateWith({ rows });
    const agent = scriptedAgent();
    const s = await start(stateDir, { agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
    const before = await sessionOf(s);
    const regenerate = await s.json('/api/chat/start', { session_id: ID, regenerate: true, message_index: 0 });
    const edit = await s.json('/api/session/message', { session_id: ID, text: 'Q, better', message_index: 0 });
    for (const res of [regenerate, edit]) expect([res.status, ((await res.json()) as Json).error]).toEqual([400, capRefusal('versions')]);
    expect(capRefusal('versions')).toBe(`This message already has ${MAX_VERSIONS_PER_MESSAGE} versions, the most Satchel keeps`);
    const after = await sessionOf(s);
    expect(after.messages).toEqual(before.messages);
    expect(after.active_stream_id ?? null).toBeNull();
    expect(agent.turns).toHaveLength(0);
  });

  it('a capture moving a staged upload into a conversation at the attachment cap: the upload route’s 400, nothing moved', async () => {
    const stateDir = await stateWith({ attachments: MAX_ATTACHMENTS_PER_SESSION });
    const s = await start(stateDir);
    const staging = await s.newSession();
    const staged = await postMultipart(s, '/api/upload', [{ name: 'session_id', content: staging }, { name: 'file', filename: 'shot.txt', content: 'staged bytes' }]);
    const res = await s.json('/api/capture/send', { destination: 'current', session_id: ID, staging_session_id: staging, text: 'see this', attachments: [staged.body.path] });
    expect([res.status, ((await res.json()) as Json).error]).toEqual([400, capRefusal('attachments')]);
    expect(await fs.readFile(staged.body.path, 'utf8')).toBe('staged bytes');
    expect(await listing(path.join(stateDir, 'attachments', ID))).toEqual([]);
    const session = await sessionOf(s);
    expect(session.attachments).toHaveLength(MAX_ATTACHMENTS_PER_SESSION);
    expect(session.messages.filter((m: Json) => m.content === 'see this')).toEqual([]);
  });
});
