// A session's title asked of the agent after its first exchange: the answer cleaned, stored and announced; a
// failure, a rename meanwhile or a stop keeps what was there; the request stays out of Hermes' history.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus, type ServerEvent } from '../store/events.js';
import type { SessionStore } from '../store/sessions.js';
import { reply, startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { scriptedAgent, TEST_AGENT_CONFIG, type ScriptedAgent } from '../testing/scripted-agent.js';
import { asksAgentForTitle, cleanTitle, askTitle, TITLE_PROMPT, titleFrom, titleRequest } from './title.js';
import { MAX_CONCURRENT_TITLES } from './turn-title.js';
import { TurnManager } from './turns.js';
import { AgentError, type AgentKind } from './types.js';
import { HERMES_SESSION_HEADER, streamTurn } from './upstream.js';
import { storedJson } from '../testing/stored-session.js';
import { openStore } from '../testing/fresh-store.js';

describe('cleanTitle', () => {
  it('keeps one line of the answer, without labels, quotes, Markdown or a full stop', () => {
    expect(cleanTitle('"Spring Trip to Lisbon"')).toBe('Spring Trip to Lisbon');
    expect(cleanTitle('Title: **Spring Trip to Lisbon.**\nThis conversation is about…')).toBe('Spring Trip to Lisbon');
    expect(cleanTitle('<think>They want a title.</think>\n\n# Lisbon in Spring\n')).toBe('Lisbon in Spring');
    expect(cleanTitle('  \n  ')).toBeUndefined();
    expect(cleanTitle('""')).toBeUndefined();
  });

  it('makes titles plain text: emphasis, code, heading, quote and link marks out, snake_case kept', () => {
    expect(cleanTitle('**Plan**')).toBe('Plan');
    expect(cleanTitle('Title: The __big__ `npm` ~~plan~~ *now*')).toBe('The big npm plan now');
    expect(titleFrom('# **Plan** the [trip](https://example.com)\n> read my_file_name.txt')).toBe('Plan the trip read my_file_name.txt');
    expect(titleFrom('- buy **milk')).toBe('buy milk');
    expect(titleFrom('2 * 3 = 6, a_b_c')).toBe('2 * 3 = 6, a_b_c');
  });

  it('cuts a long answer at 60 characters and redacts a credential', () => {
    const long = cleanTitle('A very long title that goes on and on well past any sensible length for a sidebar')!;
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long.endsWith('…')).toBe(true);
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    expect(cleanTitle(`Debugging ${key}`)).not.toContain(key);
  });
});

describe('the title request', () => {
  it('asks with the prompt, the first message and the start of the reply, bounded', () => {
    const req = titleRequest('Plan a trip to Lisbon', 'Day 1: Alfama. '.repeat(200), 'm1');
    expect(req.sessionId).toBeUndefined();
    expect(req.model).toBe('m1');
    const content = req.messages[0]!.content as string;
    expect(req.messages).toHaveLength(1);
    expect(content.startsWith(TITLE_PROMPT)).toBe(true);
    expect(content).toContain('User: Plan a trip to Lisbon');
    expect(content).toContain('Assistant: Day 1: Alfama.');
    expect(content.length).toBeLessThan(2_500);
  });

  it('asks a plain OpenAI-compatible server once: no tools, no session header; the answer made plain text', async () => {
    const fake = await startFakeAgent();
    try {
      fake.titleScript = reply('**Trip** to `Lisbon`');
      const config = { ...TEST_AGENT_CONFIG, baseUrl: fake.baseUrl, model: 'fake-model', kind: 'openai' as const };
      const title = await askTitle(streamTurn, config, { firstMessage: 'Plan a trip to Lisbon', reply: 'Day 1' }, AbortSignal.timeout(5_000));
      expect(title).toBe('Trip to Lisbon');
      expect(fake.titleRequests).toHaveLength(1);
      expect(fake.titleRequests[0]!.headers[HERMES_SESSION_HEADER.toLowerCase()]).toBeUndefined();
      expect(fake.titleRequests[0]!.body).not.toHaveProperty('tools');
      expect(fake.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });

  it('never asks Hermes’ gateway (any request there runs the agent with its tools): no request at all', async () => {
    const fake = await startFakeAgent({ hermes: true });
    try {
      fake.titleScript = reply('Trip to Lisbon');
      const config = { ...TEST_AGENT_CONFIG, baseUrl: fake.baseUrl, model: 'fake-model', kind: 'hermes' as const };
      expect(asksAgentForTitle(config)).toBe(false);
      expect(asksAgentForTitle({ kind: 'openai' })).toBe(true);
      expect(await askTitle(streamTurn, config, { firstMessage: 'Plan a trip to Lisbon', reply: 'Day 1' }, AbortSignal.timeout(5_000))).toBeUndefined();
      expect(fake.titleRequests).toHaveLength(0);
      expect(fake.requests).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });
});

describe('a whole turn, over sockets to the fake agent', () => {
  let dir: string;
  let fake: FakeAgent;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-title-'));
  });
  afterEach(async () => {
    await fake?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function oneTurn(kind: AgentKind, message: string, answer: string): Promise<string> {
    fake = await startFakeAgent({ hermes: kind === 'hermes' });
    fake.next(reply(answer));
    fake.titleScript = reply('## **Lisbon** in _Spring_');
    const sessions = await openStore(dir);
    const turns = new TurnManager(sessions, new EventBus(), {
      streamTurn,
      loadConfig: () => ({ ...TEST_AGENT_CONFIG, baseUrl: fake.baseUrl, model: 'fake-model', kind }),
      buildRequest: ({ session, text }) => ({ sessionId: session.session_id, messages: [{ role: 'user', content: text }] }),
    });
    try {
      const session = await sessions.create({ workspace: dir, profile: 'default' });
      const started = await turns.start({ session, profile: 'default', text: message, attachments: [] });
      await turns.find(started.stream_id)!.finished;
      await turns.titlesSettled();
      return (await sessions.get(session.session_id))!.title;
    } finally {
      await turns.stop();
    }
  }

  it('a Hermes-kind turn makes exactly one upstream request, and its title is derived (plain text)', async () => {
    expect(await oneTurn('hermes', '**Plan** a `trip` to _Lisbon_', 'Day 1: Alfama.')).toBe('Plan a trip to Lisbon');
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/chat/completions']);
    expect(fake.titleRequests).toHaveLength(0);
  });

  it('an openai-kind turn: the turn, then one title request without tools, its answer plain', async () => {
    expect(await oneTurn('openai', 'plan a trip to lisbon', 'Day 1: Alfama.')).toBe('Lisbon in Spring');
    expect(fake.requests).toHaveLength(1);
    expect(fake.titleRequests).toHaveLength(1);
    expect(fake.titleRequests[0]!.body).not.toHaveProperty('tools');
  });
});

describe('a title asked of the agent after the first exchange', () => {
  let dir: string;
  let sessions: SessionStore;
  let bus: EventBus;
  let events: ServerEvent[];
  let agent: ScriptedAgent;
  let turns: TurnManager;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-title-'));
    sessions = await openStore(dir);
    bus = new EventBus();
    events = [];
    bus.subscribe((e) => events.push(e));
    agent = scriptedAgent();
    turns = new TurnManager(sessions, bus, {
      streamTurn: agent.streamTurn,
      loadConfig: () => ({ ...TEST_AGENT_CONFIG, kind: 'openai' }),
      buildRequest: ({ session, text }) => ({ sessionId: session.session_id, messages: [{ role: 'user', content: text }] }),
    });
  });
  afterEach(async () => {
    await turns.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** One whole turn answered `answer` (the n-th turn of the test); returns the session id. */
  async function firstExchange(message: string, answer: string, n = 0): Promise<string> {
    const session = await sessions.create({ workspace: dir, profile: 'default' });
    const started = await turns.start({ session, profile: 'default', text: message, attachments: [] });
    const upstream = await agent.turn(n);
    upstream.push({ kind: 'token', text: answer });
    upstream.finish();
    await turns.find(started.stream_id)!.finished;
    expect((await sessions.get(session.session_id))!.title).toBe(message);
    return session.session_id;
  }

  const renames = (id: string) => events.filter((e) => e.name === 'session_renamed' && e.data.session_id === id).map((e) => (e.data as { title: string }).title);

  it("replaces the derived title with the agent's and announces it", async () => {
    const id = await firstExchange('plan a trip to lisbon for me', 'Day 1: Alfama.');
    const ask = await agent.title(0);
    expect(ask.request.sessionId).toBeUndefined();
    expect(JSON.stringify(ask.request.messages)).toContain('plan a trip to lisbon for me');
    expect(JSON.stringify(ask.request.messages)).toContain('Day 1: Alfama.');
    ask.push({ kind: 'token', text: '"Lisbon ' }, { kind: 'token', text: 'Trip Plan"' });
    ask.finish();
    await turns.titlesSettled();
    expect((await sessions.get(id))!.title).toBe('Lisbon Trip Plan');
    expect((await storedJson(dir, id)).title).toBe('Lisbon Trip Plan');
    expect(renames(id)).toEqual(['plan a trip to lisbon for me', 'Lisbon Trip Plan']);
  });

  it('keeps the derived title when the title request fails', async () => {
    const id = await firstExchange('what is the weather', 'Sunny.');
    const ask = await agent.title(0);
    ask.fail(new AgentError('rate_limit', 'The agent is rate-limited (429)'));
    await turns.titlesSettled();
    expect((await sessions.get(id))!.title).toBe('what is the weather');
    expect(renames(id)).toEqual(['what is the weather']);
  });

  it("keeps the person's rename made while the agent was thinking", async () => {
    const id = await firstExchange('what is the weather', 'Sunny.');
    const ask = await agent.title(0);
    await sessions.rename(id, 'Weather notes');
    ask.push({ kind: 'token', text: 'Weather Today' });
    ask.finish();
    await turns.titlesSettled();
    expect((await sessions.get(id))!.title).toBe('Weather notes');
    expect(renames(id)).toEqual(['what is the weather']);
  });

  it(`asks for at most ${MAX_CONCURRENT_TITLES} titles at once; the others keep their derived title`, async () => {
    const ids: string[] = [];
    for (let n = 0; n <= MAX_CONCURRENT_TITLES; n++) ids.push(await firstExchange(`question number ${n}`, 'An answer.', n));
    expect(agent.titles).toHaveLength(MAX_CONCURRENT_TITLES);
    for (const ask of agent.titles) {
      ask.push({ kind: 'token', text: 'A Better Title' });
      ask.finish();
    }
    await turns.titlesSettled();
    expect((await Promise.all(ids.map((id) => sessions.get(id)))).map((s) => s!.title)).toEqual([...Array(MAX_CONCURRENT_TITLES).fill('A Better Title'), `question number ${MAX_CONCURRENT_TITLES}`]);
  });

  it('asks only after the first exchange, and gives up when the server stops', async () => {
    const id = await firstExchange('what is the weather', 'Sunny.');
    const ask = await agent.title(0);
    const second = await turns.start({ session: (await sessions.get(id))!, profile: 'default', text: 'and tomorrow?', attachments: [] });
    const upstream = await agent.turn(1);
    upstream.push({ kind: 'token', text: 'Rain.' });
    upstream.finish();
    await turns.find(second.stream_id)!.finished;
    expect(agent.titles).toHaveLength(1);
    await turns.stop();
    expect(ask.signal.aborted).toBe(true);
    expect((await sessions.get(id))!.title).toBe('what is the weather');
  });
});
