// The sweep of unsent uploads against every kind of reference that keeps a file (issue 33, finding 2): a row shown,
// an earlier version (Edit), a version nested in a hidden version, the composer's draft, and the draft an imported
// conversation carried. Each case is made over a real server, the file's time set a week back, the sweep run on
// the stopped server's state folder, and the server started again: the file is still on disk, its chip comes back
// when the person switches to that version, and its preview answers 200.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../index.js';
import { postMultipart, TEST_TOKEN } from '../testing/harness.js';
import { ATTACHMENT_SENT } from './remove.js';
import { sweepUnsentAttachments, UNSENT_ATTACHMENT_MAX_AGE_MS } from './sweep.js';
import { openStore } from '../testing/fresh-store.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const DAY = 24 * 60 * 60 * 1000;
let tmp: string | undefined;
let running: RunningServer | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  tmp = undefined;
});

/** A server on the test's state folder (the same one again after a restart). */
async function start(): Promise<Client> {
  tmp ??= await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-sweep-refs-'));
  const workspace = path.join(tmp, 'workspace');
  await fs.mkdir(workspace, { recursive: true });
  running = await startServer({ host: '127.0.0.1', port: 0, stateDir: path.join(tmp, 'state'), token: TEST_TOKEN, maxUploadBytes: 8 * 1024 * 1024, defaultWorkspace: workspace });
  return new Client(running);
}

class Client {
  constructor(readonly srv: RunningServer) {}

  api(pathname: string, init: RequestInit = {}): Promise<Response> {
    return fetch(this.srv.origin + pathname, { ...init, headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json', ...(init.headers as Record<string, string> | undefined) } });
  }

  async post(pathname: string, body: unknown): Promise<Json> {
    const res = await this.api(pathname, { method: 'POST', body: JSON.stringify(body) });
    const json = (await res.json()) as Json;
    if (res.status !== 200) throw new Error(`${pathname}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  async newSession(): Promise<string> {
    return ((await this.post('/api/session/new', {})).session as Json).session_id as string;
  }

  async upload(sessionId: string, name: string, content: string): Promise<Json> {
    const { status, body } = await postMultipart(this, '/api/upload', [
      { name: 'session_id', content: sessionId },
      { name: 'file', filename: name, content },
    ]);
    expect(status).toBe(200);
    return body as Json;
  }

  /** POST /api/session/message: a message, or with `at` a new version from that message on (Edit). */
  async say(sessionId: string, text: string, attachments: Json[], at?: number): Promise<Json> {
    return (await this.post('/api/session/message', { session_id: sessionId, text, attachments, ...(at === undefined ? {} : { message_index: at }) })).session as Json;
  }

  async session(sessionId: string): Promise<Json> {
    return ((await (await this.api(`/api/session?session_id=${sessionId}`)).json()) as Json).session as Json;
  }

  async showVersion(sessionId: string, at: number, version: number): Promise<Json> {
    return (await this.post('/api/session/version', { session_id: sessionId, message_index: at, version })).session as Json;
  }

  async preview(sessionId: string, name: string): Promise<number> {
    const res = await this.api(`/api/attachment/preview?session_id=${sessionId}&name=${encodeURIComponent(name)}`);
    await res.arrayBuffer();
    return res.status;
  }
}

/** Stop the server, move the files' time a week and a day back, sweep its state folder as a restart would, start again. */
async function aWeekLater(files: string[]): Promise<{ removed: number; client: Client }> {
  await running!.close();
  running = undefined;
  const when = new Date(Date.now() - UNSENT_ATTACHMENT_MAX_AGE_MS - DAY);
  for (const file of files) await fs.utimes(file, when, when);
  const stateDir = path.join(tmp!, 'state');
  const store = await openStore(stateDir);
  let removed: number;
  try {
    removed = await sweepUnsentAttachments(stateDir, store);
  } finally {
    await store.close();
  }
  return { removed, client: await start() };
}

const exists = (p: string) => fs.access(p).then(() => true, () => false);
const chips = (row: Json | undefined) => ((row?.attachments ?? []) as Json[]).map((a) => a.filename as string);

describe('the sweep keeps every file a version or a draft names', () => {
  it('a row shown', async () => {
    const c = await start();
    const id = await c.newSession();
    const report = await c.upload(id, 'report.txt', 'quarterly numbers');
    await c.say(id, 'see the report', [report]);
    const { removed, client } = await aWeekLater([report.path]);
    expect(removed).toBe(0);
    expect(await exists(report.path)).toBe(true);
    expect(chips((await client.session(id)).messages[0])).toEqual(['report.txt']);
    expect(await client.preview(id, 'report.txt')).toBe(200);
  });

  it('an earlier version: Edit into a message without the file, then switch back', async () => {
    const c = await start();
    const id = await c.newSession();
    const report = await c.upload(id, 'report.txt', 'quarterly numbers');
    await c.say(id, 'see the report', [report]);
    const edited = await c.say(id, 'never mind the file', [], 0);
    expect(chips(edited.messages[0])).toEqual([]);
    // Deleting its chip is refused as for a row shown: a version refers to it.
    const del = await c.api(`/api/session/attachment?session_id=${id}&path=${encodeURIComponent(report.path)}`, { method: 'DELETE' });
    expect([del.status, ((await del.json()) as Json).error]).toEqual([409, ATTACHMENT_SENT]);

    const { removed, client } = await aWeekLater([report.path]);
    expect(removed).toBe(0);
    expect(await exists(report.path)).toBe(true);
    const back = await client.showVersion(id, 0, 0);
    expect(back.messages[0].content).toBe('see the report');
    expect(chips(back.messages[0])).toEqual(['report.txt']);
    expect(await client.preview(id, 'report.txt')).toBe(200);
    expect(((await client.session(id)).attachments as Json[]).map((a) => a.filename)).toEqual(['report.txt']);
  });

  it('a version nested in a hidden version (a branch of a branch)', async () => {
    const c = await start();
    const id = await c.newSession();
    const first = await c.upload(id, 'first.txt', 'one');
    const second = await c.upload(id, 'second.txt', 'two');
    await c.say(id, 'first, with a file', [first]);
    await c.say(id, 'second, with a file', [second]);
    // Edit the second message without its file, then the first without its: second.txt is now named only inside
    // the fork of a row of the hidden first version.
    await c.say(id, 'second, without', [], 1);
    const shown = await c.say(id, 'first, without', [], 0);
    expect(shown.messages.map((m: Json) => m.content)).toEqual(['first, without']);

    const { removed, client } = await aWeekLater([first.path, second.path]);
    expect(removed).toBe(0);
    expect(await exists(first.path)).toBe(true);
    expect(await exists(second.path)).toBe(true);
    const back = await client.showVersion(id, 0, 0);
    expect(chips(back.messages[0])).toEqual(['first.txt']);
    expect(back.messages[1].content).toBe('second, without');
    const deeper = await client.showVersion(id, 1, 0);
    expect(deeper.messages[1].content).toBe('second, with a file');
    expect(chips(deeper.messages[1])).toEqual(['second.txt']);
    expect(await client.preview(id, 'second.txt')).toBe(200);
  });

  it("the composer's draft", async () => {
    const c = await start();
    const id = await c.newSession();
    const report = await c.upload(id, 'report.txt', 'quarterly numbers');
    const put = await c.api('/api/session/draft', { method: 'PUT', body: JSON.stringify({ session_id: id, text: 'about to send', attachments: [{ path: report.path }] }) });
    expect(put.status).toBe(200);
    const { removed, client } = await aWeekLater([report.path]);
    expect(removed).toBe(0);
    expect(await exists(report.path)).toBe(true);
    const draft = ((await (await client.api(`/api/session/draft?session_id=${id}`)).json()) as Json).draft as Json;
    expect(chips(draft)).toEqual(['report.txt']);
    expect(await client.preview(id, 'report.txt')).toBe(200);
  });

  it('the draft of an imported conversation', async () => {
    const c = await start();
    const id = await c.newSession();
    const sent = await c.upload(id, 'sent.txt', 'sent');
    await c.say(id, 'with a file', [sent]);
    const report = await c.upload(id, 'report.txt', 'quarterly numbers');
    await c.api('/api/session/draft', { method: 'PUT', body: JSON.stringify({ session_id: id, text: 'about to send', attachments: [{ path: report.path }] }) });
    const exported = await c.api(`/api/session/export?session_id=${id}&format=json`);
    expect(exported.status).toBe(200);
    const zip = Buffer.from(await exported.arrayBuffer());
    const { status, body } = await postMultipart(c, '/api/session/import', [
      { name: 'file', filename: 'conversation.satchel.zip', content: zip },
    ]);
    expect(status).toBe(200);
    const imported = (body as Json).session as Json;
    const importedReport = (imported.attachments as Json[]).find((a) => a.filename === 'report.txt')!;
    expect(importedReport.path).not.toBe(report.path);
    const draftOf = async (client: Client) => ((await (await client.api(`/api/session/draft?session_id=${imported.session_id}`)).json()) as Json).draft as Json;
    const restored = await draftOf(c);
    expect([restored.text, chips(restored)]).toEqual(['about to send', ['report.txt']]);

    const { removed, client } = await aWeekLater([importedReport.path as string]);
    expect(removed).toBe(0);
    expect(await exists(importedReport.path as string)).toBe(true);
    expect(chips(await draftOf(client))).toEqual(['report.txt']);
    expect(await client.preview(imported.session_id as string, 'report.txt')).toBe(200);
  });

  it('still removes a week-old upload nothing names', async () => {
    const c = await start();
    const id = await c.newSession();
    const kept = await c.upload(id, 'kept.txt', 'kept');
    const stray = await c.upload(id, 'stray.txt', 'stray');
    await c.say(id, 'one file', [kept]);
    await c.say(id, 'edited', [], 0);
    const { removed, client } = await aWeekLater([kept.path, stray.path]);
    expect(removed).toBe(1);
    expect(await exists(stray.path)).toBe(false);
    expect(await exists(kept.path)).toBe(true);
    expect(await client.preview(id, 'stray.txt')).toBe(404);
  });
});
