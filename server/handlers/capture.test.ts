// Quick capture's routes over a real server: the page at /capture, the kept draft, and sending to each
// destination (the current conversation, the Inbox through a fake resolver, a new conversation asking the agent).
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { scriptedAgent, TEST_AGENT_CONFIG, type ScriptedAgent } from '../testing/scripted-agent.js';
import { storedJson } from '../testing/stored-session.js';
import { contentSecurityPolicy } from '../http/headers.js';
import type { App } from '../app.js';
import type { Session } from '../store/sessions.js';
import { CAPTURE_EMPTY, REPLY_NOT_BOOLEAN, REPLY_ONLY_CURRENT } from './capture.js';
import { MAX_TURN_ATTACHMENTS as MAX_CAPTURE_ATTACHMENTS } from '../store/caps.js';

let srv: TestServer;
let bare: TestServer;
let agent: ScriptedAgent;
/** The fake Inbox: one conversation per profile, made on first use (as server/inbox/session.ts does). */
const inboxIds = new Map<string, string>();

async function fakeInbox(app: App, profile: string): Promise<Session> {
  const known = inboxIds.get(profile);
  if (known) return (await app.sessions.get(known))!;
  const session = await app.sessions.create({ workspace: app.workspaces.fallbackWorkspace, profile });
  inboxIds.set(profile, session.session_id);
  return session;
}

beforeAll(async () => {
  agent = scriptedAgent();
  srv = await startTestServer({ staticDir: path.resolve('renderer'), inboxSession: fakeInbox, agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
  bare = await startTestServer();
});
afterAll(async () => {
  await srv.stop();
  await bare.stop();
});

async function upload(s: TestServer, sessionId: string, name: string, bytes: string): Promise<{ path: string; filename: string }> {
  const form = new FormData();
  form.set('session_id', sessionId);
  form.set('file', new Blob([bytes]), name);
  const res = await s.api('/api/upload', { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return (await res.json()) as { path: string; filename: string };
}

const put = (s: TestServer, body: unknown) => s.api('/api/capture/draft', { method: 'PUT', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
const view = async (s: TestServer, q = '') => (await (await s.api(`/api/capture${q}`)).json()) as { current: { session_id: string; title: string } | null; inbox: boolean; draft: { text: string; destination: string; session_id: string | null; attachments: { path: string; filename: string }[] } };

describe('the page', () => {
  it('is served at /capture with the main page\'s headers; it cannot be framed', async () => {
    const res = await fetch(`${srv.origin}/capture`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toContain('<script type="module" src="capture.js"></script>');
    expect(html).toBe(await fs.readFile(path.resolve('renderer/capture.html'), 'utf8'));
  });

  it('takes the token link as / does: the cookie is set and the token leaves the address, ?session= stays', async () => {
    const res = await fetch(`${srv.origin}/capture?token=${srv.token}&session=abc123abc123`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/capture?session=abc123abc123');
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    const wrong = await fetch(`${srv.origin}/capture?token=nope`, { redirect: 'manual' });
    expect(wrong.status).toBe(403);
  });

  it('its routes need the token', async () => {
    expect((await fetch(`${srv.origin}/api/capture`)).status).toBe(401);
    expect((await fetch(`${srv.origin}/api/capture/send`, { method: 'POST', body: '{}' })).status).toBe(401);
  });
});

describe('GET /api/capture and the draft', () => {
  it('names the most recent conversation, or the one asked for; 404 for one of another profile', async () => {
    const older = await srv.newSession();
    const newer = await srv.newSession();
    expect((await view(srv)).current?.session_id).toBe(newer);
    expect((await view(srv, `?session=${older}`)).current?.session_id).toBe(older);
    const other = await srv.newSession({ profile: 'work' });
    expect((await srv.api(`/api/capture?session=${other}`)).status).toBe(404);
    expect((await view(srv)).inbox).toBe(true);
    expect((await view(bare)).inbox).toBe(true);
  });

  it('keeps the text, the staged uploads and the destination; a foreign path is refused', async () => {
    const id = await srv.newSession();
    const a = await upload(srv, id, 'note.txt', 'remember the milk');
    const res = await put(srv, { text: 'half a thought', destination: 'inbox', session_id: id, attachments: [a.path] });
    expect(res.status).toBe(200);
    const v = await view(srv);
    expect(v.draft).toMatchObject({ text: 'half a thought', destination: 'inbox', session_id: id });
    expect(v.draft.attachments.map((x) => x.filename)).toEqual(['note.txt']);
    expect((await put(srv, { text: '', session_id: id, attachments: ['/etc/passwd'] })).status).toBe(400);
    expect(await (await put(srv, { destination: 'elsewhere' })).json()).toEqual({ error: 'Invalid destination (current, inbox or ask)' });
    expect((await put(srv, { text: 5 })).status).toBe(400);
    await put(srv, {});
    expect((await view(srv)).draft).toEqual({ text: '', destination: 'current', session_id: null, attachments: [] });
  });
});

describe('POST /api/capture/send', () => {
  const send = (s: TestServer, body: unknown) => s.json('/api/capture/send', body);

  it('to the current conversation: the message and its uploads, and the draft is cleared', async () => {
    const id = await srv.newSession();
    const a = await upload(srv, id, 'shot.png', 'PNGDATA');
    await put(srv, { text: 'see this', session_id: id, attachments: [a.path] });
    const res = await send(srv, { destination: 'current', session_id: id, staging_session_id: id, text: 'see this', attachments: [a.path] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, destination: 'current', session_id: id });
    const stored = await storedJson(srv.stateDir, id);
    expect(stored.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([['user', 'see this']]);
    expect(stored.messages[0].attachments.map((x: { filename: string }) => x.filename)).toEqual(['shot.png']);
    expect((await view(srv)).draft.text).toBe('');
  });

  it('to the Inbox: uploads staged in another conversation move there, bytes and all', async () => {
    const staging = await srv.newSession();
    const a = await upload(srv, staging, 'scan.txt', 'page one');
    const res = await send(srv, { destination: 'inbox', staging_session_id: staging, text: 'from the scanner', attachments: [a.path] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { session_id: string };
    expect(body.session_id).toBe(inboxIds.get('default'));
    const inbox = await storedJson(srv.stateDir, body.session_id);
    const sent = inbox.messages[0].attachments[0] as { path: string; filename: string };
    expect(sent.filename).toBe('scan.txt');
    expect(await fs.readFile(sent.path, 'utf8')).toBe('page one');
    // Gone from where it was staged: the file and its record.
    await expect(fs.access(a.path)).rejects.toThrow();
    expect((await storedJson(srv.stateDir, staging)).attachments).toEqual([]);
  });

  it('to the Inbox of a server with nothing injected: the same Inbox conversation the watched folders fill', async () => {
    const res = await send(bare, { destination: 'inbox', text: 'a note for later' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { session_id: string };
    const inbox = await storedJson(bare.stateDir, body.session_id);
    expect(inbox.title).toBe('Inbox');
    expect(inbox.messages[0].content).toBe('a note for later');
    // Again: the same conversation, not a second Inbox.
    const again = (await (await send(bare, { destination: 'inbox', text: 'another' })).json()) as { session_id: string };
    expect(again.session_id).toBe(body.session_id);
  });

  it('asking the agent: a new conversation with the text as the question, its turn running', async () => {
    const before = agent.turns.length;
    const res = await send(srv, { destination: 'ask', text: 'What is the capital of Portugal?' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { session_id: string; stream_id: string };
    expect(body.stream_id).toMatch(/\S/);
    const upstream = await agent.turn(before);
    upstream.push({ kind: 'token', text: 'Lisbon.' });
    upstream.finish();
    await expect.poll(async () => (await storedJson(srv.stateDir, body.session_id)).messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'What is the capital of Portugal?'],
      ['assistant', 'Lisbon.'],
    ]);
  });

  it('to the current conversation with reply: the message is a turn the agent answers there', async () => {
    const id = await srv.newSession();
    const before = agent.turns.length;
    const res = await send(srv, { destination: 'current', session_id: id, text: 'How long does the tea steep?', reply: true });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { destination: string; session_id: string; stream_id: string };
    expect(body).toMatchObject({ destination: 'current', session_id: id });
    expect(body.stream_id).toMatch(/\S/);
    const upstream = await agent.turn(before);
    upstream.push({ kind: 'token', text: 'Three minutes.' });
    upstream.finish();
    await expect.poll(async () => (await storedJson(srv.stateDir, id)).messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'How long does the tea steep?'],
      ['assistant', 'Three minutes.'],
    ]);
  });

  it('reply: refused while a turn runs there, without an agent, and where it means nothing; nothing is stored', async () => {
    const id = await srv.newSession();
    const before = agent.turns.length;
    expect((await send(srv, { destination: 'current', session_id: id, text: 'first', reply: true })).status).toBe(200);
    const upstream = await agent.turn(before);
    const busy = await send(srv, { destination: 'current', session_id: id, text: 'second', reply: true });
    expect(busy.status).toBe(409);
    upstream.finish();
    await expect.poll(async () => (await storedJson(srv.stateDir, id)).messages.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content)).toEqual(['first']);
    await expect.poll(async () => (await storedJson(srv.stateDir, id)).active_stream_id ?? null).toBe(null);
    const lone = await bare.newSession();
    const refused = await send(bare, { destination: 'current', session_id: lone, text: 'hello?', reply: true });
    expect(refused.status).toBe(503);
    expect((await storedJson(bare.stateDir, lone)).messages).toEqual([]);
    expect(await (await send(srv, { destination: 'current', session_id: id, text: 'x', reply: 'yes' })).json()).toEqual({ error: REPLY_NOT_BOOLEAN });
    expect(await (await send(srv, { destination: 'inbox', text: 'x', reply: true })).json()).toEqual({ error: REPLY_ONLY_CURRENT });
    expect(await (await send(srv, { destination: 'ask', text: 'x', reply: false })).json()).toEqual({ error: REPLY_ONLY_CURRENT });
    // Another profile's conversation is not found, reply or not.
    expect((await send(srv, { destination: 'current', session_id: 'abcdefabcdef', text: 'x', reply: true })).status).toBe(404);
  });

  it('refuses what is not a capture, with the reason', async () => {
    const id = await srv.newSession();
    expect(await (await send(srv, { destination: 'current', session_id: id, text: '  ' })).json()).toEqual({ error: CAPTURE_EMPTY });
    expect((await send(srv, { destination: 'current', text: 'x' })).status).toBe(404);
    expect(await (await send(srv, { destination: 'current', session_id: id, staging_session_id: id, text: 'x', attachments: ['/etc/passwd'] })).json()).toEqual({ error: 'Unknown attachment' });
    const many = Array.from({ length: MAX_CAPTURE_ATTACHMENTS + 1 }, () => 'x');
    expect(await (await send(srv, { destination: 'current', session_id: id, staging_session_id: id, text: 'x', attachments: many })).json()).toEqual({
      error: `Too many attachments (max ${MAX_CAPTURE_ATTACHMENTS})`,
    });
    expect((await send(srv, { destination: 'nowhere', text: 'x' })).status).toBe(400);
    expect((await storedJson(srv.stateDir, id)).messages).toEqual([]);
  });
});
