// The agent's settings routes and a whole turn through the real upstream against the fake agent: the API key
// is stored, used, and never seen again — in no response, no frame, no log line, no session file.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogSink } from '../core/log.js';
import { startFakeAgent, reply, type FakeAgent } from '../testing/fake-agent.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { openSse } from '../testing/sse.js';

const KEY = 'sk-satchel-test-key-do-not-leak-4f1c9a7e2b';
let srv: TestServer;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await startFakeAgent({ apiKey: KEY });
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.stop();
  await agent.close();
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(path.join(entry.parentPath, entry.name));
  }
  return out;
}

describe('agent settings and the key', () => {
  it('saves settings, shows them without the key, talks to the agent with it, and never lets it out', async () => {
    const seen: string[] = [];
    const lines: string[] = [];
    const restore = setLogSink((l) => lines.push(l));
    const text = async (res: Response) => {
      const t = await res.text();
      res.headers.forEach((value, name) => seen.push(`${name}: ${value}`));
      seen.push(t);
      return t;
    };
    try {
      const before = JSON.parse(await text(await srv.api('/api/agent/settings')));
      expect(before).toMatchObject({ base_url: null, has_api_key: false });
      const saved = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: KEY, model: 'fake-model', kind: 'openai' });
      expect(saved.status).toBe(200);
      expect(JSON.parse(await text(saved))).toMatchObject({ base_url: agent.baseUrl, model: 'fake-model', kind: 'openai', has_api_key: true });
      expect(JSON.parse(await text(await srv.api('/api/agent/settings')))).toMatchObject({ has_api_key: true });
      expect((await fs.stat(path.join(srv.stateDir, 'agent.json'))).mode & 0o777).toBe(0o600);
      const tested = JSON.parse(await text(await srv.json('/api/agent/test', {})));
      expect(tested).toEqual({ ok: true, models: ['fake-model'], kind: 'openai', key_checked: true, tools: true, message: `Connected to an OpenAI-compatible server at 127.0.0.1:${agent.port}: 1 model, key accepted.` });
      expect(agent.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      const wrongKey = JSON.parse(await text(await srv.json('/api/agent/test', { base_url: agent.baseUrl, api_key: 'sk-wrong-key-0123456789abcdef' })));
      expect(wrongKey).toMatchObject({ ok: false, type: 'auth_error' });
      // Another address never gets the stored key.
      const elsewhere = await startFakeAgent();
      try {
        await text(await srv.json('/api/agent/test', { base_url: elsewhere.baseUrl }));
        expect(elsewhere.requests.length).toBeGreaterThan(0);
        expect(elsewhere.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
      } finally {
        await elsewhere.close();
      }
      const bad = await srv.json('/api/agent/settings', { base_url: 'not a url', model: 'm' });
      expect(bad.status).toBe(400);
      await text(bad);

      const id = await srv.newSession();
      agent.next(reply('Hello from the fake agent', { usage: [7, 5] }));
      const started = JSON.parse(await text(await srv.json('/api/chat/start', { session_id: id, message: 'hi there' })));
      const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${started.stream_id}`);
      await stream.ended();
      const frames = stream.frames();
      seen.push(JSON.stringify(stream.blocks));
      // The live pieces (how many depends on what the stream redactor holds back a moment) spell the reply.
      const tokens = frames.filter((f) => f.event === 'token');
      expect(tokens.length).toBeGreaterThan(1);
      expect(tokens.map((f) => JSON.parse(f.data!).text).join('')).toBe('Hello from the fake agent');
      // Who is asked first (issue 38, item 6), then the tokens.
      expect(frames[0]!.event).toBe('answered_by');
      expect(frames.slice(1 + tokens.length).map((f) => f.event)).toEqual(['done', 'metering', 'title', 'stream_end']);
      expect(agent.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      const session = JSON.parse(await text(await srv.api(`/api/session?session_id=${id}`))).session;
      expect(session.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello from the fake agent' });

      // A key the agent refuses: the failure says so without quoting it.
      await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: `${KEY}-wrong`, model: 'fake-model', kind: 'openai' }).then(text);
      const refused = JSON.parse(await text(await srv.json('/api/chat/start', { session_id: id, message: 'again' })));
      const failed = await openSse(srv.port, `/api/chat/stream?stream_id=${refused.stream_id}`);
      await failed.ended();
      seen.push(JSON.stringify(failed.blocks));
      expect(failed.frames().map((f) => f.event)).toEqual(['answered_by', 'apperror', 'stream_end']);
      expect(JSON.parse(failed.frames()[1]!.data!).type).toBe('auth_error');

      for (const t of seen) expect(t).not.toContain(KEY);
      expect(lines.join('\n')).not.toContain(KEY);
      for (const file of await filesUnder(srv.stateDir)) {
        if (path.basename(file) === 'agent.json') continue;
        expect(await fs.readFile(file, 'utf8'), file).not.toContain(KEY);
      }
    } finally {
      restore();
    }
  });
});

describe('the kind and the key belong to the connection', () => {
  /** Starts one chat turn on `id` and waits for its end; the frames' names. */
  async function turn(server: TestServer, id: string, message: string): Promise<string[]> {
    const started = (await (await server.json('/api/chat/start', { session_id: id, message })).json()) as { stream_id: string };
    const stream = await openSse(server.port, `/api/chat/stream?stream_id=${started.stream_id}`);
    await stream.ended();
    return stream.frames().map((f) => f.event!);
  }

  it('a new base URL is probed for its kind and never receives the previous key unless the person keeps it', async () => {
    const own = await startTestServer();
    const hermes = await startFakeAgent({ apiKey: KEY, hermes: true, models: ['hermes-agent'] });
    const plain = await startFakeAgent({ models: ['fake-model'] });
    const third = await startFakeAgent({ models: ['fake-model'] });
    try {
      const first = await (await own.json('/api/agent/settings', { base_url: hermes.baseUrl, api_key: KEY, model: 'hermes-agent' })).json();
      expect(first).toMatchObject({ base_url: hermes.baseUrl, kind: 'hermes', has_api_key: true });
      // Saved again at the same address without a kind (another model, say): the detected kind stays.
      const again = await (await own.json('/api/agent/settings', { base_url: hermes.baseUrl, model: 'hermes-agent' })).json();
      expect(again).toMatchObject({ base_url: hermes.baseUrl, kind: 'hermes', has_api_key: true });
      const id = await own.newSession();
      hermes.next(reply('One.'));
      expect(await turn(own, id, 'First question')).toContain('done');
      expect(hermes.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);

      // Testing another address that wants a key: the saved one is not sent, and the answer says why.
      const locked = await startFakeAgent({ apiKey: 'sk-another-agents-key-0123456789' });
      try {
        expect(await (await own.json('/api/agent/test', { base_url: locked.baseUrl })).json()).toEqual({
          ok: false,
          type: 'auth_error',
          message: `The agent at 127.0.0.1:${locked.port} needs an API key (401).`,
          hint: `The saved key goes only to 127.0.0.1:${hermes.port}: type the key here, or Save and keep it for this address.`,
        });
        for (const r of locked.requests) expect(r.headers.authorization).toBeUndefined();
      } finally {
        await locked.close();
      }

      // What the dialog sent before this issue: the new address, the key field empty, the old kind.
      const moved = await (await own.json('/api/agent/settings', { base_url: plain.baseUrl, model: 'fake-model', kind: 'hermes' })).json();
      expect(moved).toMatchObject({ base_url: plain.baseUrl, kind: 'openai', has_api_key: false });
      const stored = await fs.readFile(path.join(own.stateDir, 'agent.json'), 'utf8');
      expect(stored).not.toContain(KEY);
      expect(JSON.parse(stored).kind).toBe('openai');
      expect(await (await own.json('/api/agent/test', {})).json()).toMatchObject({ ok: true, kind: 'openai', key_checked: true });
      plain.next(reply('Two.'));
      expect(await turn(own, id, 'Second question')).toContain('done');
      // Read off the second agent's sockets: not one request carried a key or Hermes' session header.
      expect(plain.requests.length).toBeGreaterThan(0);
      for (const r of plain.requests) {
        expect(r.headers.authorization, `${r.method} ${r.path}`).toBeUndefined();
        expect(r.headers['x-hermes-session-id'], `${r.method} ${r.path}`).toBeUndefined();
      }
      // An openai-kind agent gets the whole conversation, the turns the other agent answered included.
      const sent = plain.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!.body as { messages: { role: string; content: unknown }[] };
      expect(sent.messages.map((m) => [m.role, m.content])).toEqual([
        ['user', 'First question'],
        ['assistant', 'One.'],
        ['user', 'Second question'],
      ]);

      // Kept on purpose: the person confirmed sending the saved key to the new address.
      await own.json('/api/agent/settings', { base_url: plain.baseUrl, api_key: KEY, model: 'fake-model' }).then((r) => r.text());
      const kept = await (await own.json('/api/agent/settings', { base_url: third.baseUrl, model: 'fake-model', keep_api_key: true })).json();
      expect(kept).toMatchObject({ base_url: third.baseUrl, has_api_key: true });
      await own.json('/api/agent/test', {}).then((r) => r.text());
      expect(third.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect((await own.json('/api/agent/settings', { base_url: third.baseUrl, model: 'm', keep_api_key: 'yes' })).status).toBe(400);
    } finally {
      await own.stop();
      await Promise.all([hermes.close(), plain.close(), third.close()]);
    }
  });
});

describe('a key store handed in (as the desktop app does)', () => {
  it('the routes keep the key there: not in agent.json, not in a response, and the agent gets it', async () => {
    let held: string | undefined;
    const own = await startTestServer({ agentKeyStore: { get: () => held, set: async (value) => void (held = value) } });
    try {
      const saved = await own.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: KEY, model: 'fake-model', kind: 'openai' });
      const shown = await saved.text();
      expect(saved.status).toBe(200);
      expect(JSON.parse(shown)).toMatchObject({ has_api_key: true });
      expect(shown).not.toContain(KEY);
      expect(held).toBe(KEY);
      expect(await fs.readFile(path.join(own.stateDir, 'agent.json'), 'utf8')).not.toContain(KEY);
      expect(JSON.parse(await (await own.json('/api/agent/test', {})).text())).toMatchObject({ ok: true });
      expect(agent.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    } finally {
      await own.stop();
    }
  });
});

describe('GET /api/agent/discover', () => {
  it('lists what answers on the usual local ports', async () => {
    const res = await srv.api('/api/agent/discover');
    expect(res.status).toBe(200);
    const { agents } = (await res.json()) as { agents: { base_url: string }[] };
    expect(Array.isArray(agents)).toBe(true);
    for (const a of agents) expect(a.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
