// Satchel's own tools in a turn (issue 36, "the agent can ask for more"), over real sockets against the fake
// OpenAI-compatible server: a scripted model that calls each tool and reads what it got back; a second one that
// misuses them (paths out, a symlink out, a hidden file, huge ranges, broken JSON, an unknown tool, a thousand
// calls), each answered in one sentence while the turn still ends with an answer; the per-connection switch; a
// server refusing tools, on Test and in a turn.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chunk, reply, startFakeAgent, toolCallChunk, usageChunk, type FakeAgent, type ListScript } from '../testing/fake-agent.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { openSse, type SseStream } from '../testing/sse.js';
import { storedJson } from '../testing/stored-session.js';
import { PS2PDF, ps2pdf } from '../content/testing/pdf-tools.js';
import { MAX_PAGES_PER_READ, MAX_TOOL_CALLS_PER_TURN, MAX_TOOL_ROUNDS } from '../agent/tools/limits.js';
import { NO_ANSWER_AFTER_TOOLS, TOO_MANY_CALLS } from '../agent/tools/loop.js';
import { TOOLS_REFUSED_SENTENCE } from '../agent/discover.js';

const TURN_DEADLINE_MS = 20_000;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Call = { id?: string; name: string; arguments: string };

let srv: TestServer;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await startFakeAgent();
  srv = await startTestServer();
  const saved = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, model: 'fake-model', kind: 'openai' });
  expect(saved.status).toBe(200);
});
afterAll(async () => {
  await srv?.stop();
  await agent?.close();
});
beforeEach(() => {
  agent.requests.length = 0;
});

/** A reply that only calls tools, as a model streams one: the calls, finish_reason tool_calls, usage. */
function calling(calls: Call[]): ListScript {
  return {
    frames: [
      chunk({ role: 'assistant', content: null }),
      ...calls.map((c, i) => toolCallChunk(i, { id: c.id ?? `call_${i}`, name: c.name, arguments: c.arguments })),
      chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
      usageChunk(100, 10),
    ],
  };
}

async function turn(sessionId: string, message: string, attachments: unknown[] = []): Promise<SseStream> {
  const res = await srv.json('/api/chat/start', { session_id: sessionId, message, attachments });
  const body = (await res.json()) as { stream_id: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${body.stream_id}`);
  await stream.ended(TURN_DEADLINE_MS);
  return stream;
}

async function upload(sessionId: string, file: string): Promise<Json> {
  const form = new FormData();
  form.append('session_id', sessionId);
  form.append('file', new Blob([await fs.readFile(file)]), path.basename(file));
  const res = await srv.api('/api/upload', { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

const completions = () => agent.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body as Json);
const toolMessages = (body: Json) => (body.messages as Json[]).filter((m) => m.role === 'tool');
const settings = async () => (await (await srv.api('/api/agent/settings')).json()) as Json;

/** A session whose earlier turn attached a three-page PDF, and whose workspace holds a note. */
async function conversationWithReport(dir: string): Promise<string> {
  const pdf = await ps2pdf(srv.tmp, 'report.pdf', [
    ['Quarterly report', 'Sales were flat in spring.'],
    ['Harbour section', 'The harbour fee is 41 euros per night.'],
    ['Outlook', 'Next year looks bright.'],
  ]);
  const workspace = path.join(srv.workspace, dir);
  await fs.mkdir(path.join(workspace, 'notes'), { recursive: true });
  await fs.writeFile(path.join(workspace, 'notes', 'plan.md'), '# Plan\n\nBook the ferry on Tuesday.\n');
  const id = await srv.newSession({ workspace });
  agent.next(reply('Noted.'));
  await turn(id, 'Here is the report.', [await upload(id, pdf)]);
  agent.requests.length = 0;
  return id;
}

describe.skipIf(!PS2PDF)('Satchel\'s tools in a turn', () => {
  it('offers the three tools, runs each call, sends the results back and stores the answer with its cards only', async () => {
    const id = await conversationWithReport('tools-each');
    agent.next(
      calling([
        { name: 'list_files', arguments: '{}' },
        { name: 'read_file', arguments: '{"name": "report.pdf", "pages": "2"}' },
        { name: 'search_documents', arguments: '{"query": "harbour fee"}' },
        { name: 'read_file', arguments: '{"name": "notes/plan.md"}' },
      ]),
    );
    agent.next(reply('The harbour fee is 41 euros.'));
    const stream = await turn(id, 'What did page 2 say about the harbour?');

    const [first, second] = completions();
    expect(first!.tools.map((t: Json) => t.function.name)).toEqual(['list_files', 'read_file', 'search_documents']);
    const results = toolMessages(second!).map((m) => m.content as string);
    expect(results).toHaveLength(4);
    expect(second!.messages.at(-5)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'list_files' } }, {}, {}, {}] });
    expect(toolMessages(second!).map((m) => m.tool_call_id)).toEqual(['call_0', 'call_1', 'call_2', 'call_3']);
    const [listed, page2, found, plan] = results as [string, string, string, string];
    expect(listed).toContain('"report.pdf" (attached) satchel://session/');
    expect(listed).toContain('notes/plan.md');
    expect(page2).toContain('The harbour fee is 41 euros per night.');
    expect(page2).toContain('"report.pdf", page 2');
    expect(page2).not.toContain('Sales were flat');
    expect(found).toContain('--- "report.pdf", page 2 ---');
    expect(plan).toContain('Book the ferry on Tuesday.');
    // No folder of this machine in what the tools sent.
    expect(JSON.stringify(second!.messages.slice(-5))).not.toContain(srv.tmp);

    const cards = stream.frames().filter((f) => f.event === 'tool_complete').map((f) => JSON.parse(f.data!) as Json);
    expect(cards.map((c) => [c.name, c.is_error])).toEqual([['list_files', false], ['read_file', false], ['search_documents', false], ['read_file', false]]);
    const stored = (await storedJson(srv.stateDir, id)).messages as Json[];
    const answer = stored.at(-1)!;
    expect(answer).toMatchObject({ role: 'assistant', content: 'The harbour fee is 41 euros.' });
    expect(answer.tool_activity.map((t: Json) => [t.name, t.preview, t.status])).toEqual([
      ['list_files', 'the conversation’s files', 'finished'],
      ['read_file', 'report.pdf, pages 2', 'finished'],
      ['search_documents', 'harbour fee', 'finished'],
      ['read_file', 'notes/plan.md', 'finished'],
    ]);
    expect(answer.tool_calls).toBeUndefined();
    expect(stored.some((m) => m.role === 'tool')).toBe(false);

    // The next turn's history is what the screen shows: the answer's text, no calls and no results.
    agent.requests.length = 0;
    agent.next(reply('Yes.'));
    await turn(id, 'Thanks');
    const history = completions()[0]!.messages as Json[];
    expect(history.filter((m) => m.role === 'tool' || m.tool_calls)).toEqual([]);
    expect(history.at(-2)).toEqual({ role: 'assistant', content: 'The harbour fee is 41 euros.' });
  });

  it('answers every misuse in one sentence, runs at most the turn\'s calls, and the turn still ends with an answer', async () => {
    const id = await conversationWithReport('tools-misuse');
    const workspace = path.join(srv.workspace, 'tools-misuse');
    const outside = path.join(srv.tmp, 'outside-secret.txt');
    await fs.writeFile(outside, 'OUTSIDE-SECRET-7731');
    await fs.symlink(outside, path.join(workspace, 'link.txt'));
    await fs.writeFile(path.join(workspace, '.env'), 'HIDDEN-SECRET-4410');
    const misuse: Call[] = [
      { name: 'read_file', arguments: '{"name": "../../state/agent.json"}' },
      { name: 'read_file', arguments: JSON.stringify({ name: outside }) },
      { name: 'read_file', arguments: '{"name": "link.txt"}' },
      { name: 'read_file', arguments: '{"name": ".env"}' },
      { name: 'read_file', arguments: '{"name": "report.pdf", "pages": "1-100000"}' },
      { name: 'read_file', arguments: '{"name": "report.pdf", "pages": "2; drop"}' },
      { name: 'read_file', arguments: '{"name": "satchel://session/0123456789ab/attachment/report.pdf"}' },
      { name: 'read_file', arguments: '{not json' },
      { name: 'read_file', arguments: '{}' },
      { name: 'delete_everything', arguments: '{}' },
      { name: 'search_documents', arguments: '{"query": ""}' },
    ];
    agent.next(calling(misuse));
    // Then a thousand reads in four replies of 250 (a reply may bring at most 256 calls).
    for (let r = 0; r < 4; r++) {
      agent.next(calling(Array.from({ length: 250 }, (_, i) => ({ id: `r${r}_${i}`, name: 'read_file', arguments: '{"name": "report.pdf", "pages": "2"}' }))));
    }
    agent.next(reply('I could read only page 2.'));
    const stream = await turn(id, 'Read everything you can.');

    const bodies = completions();
    expect(bodies).toHaveLength(6);
    const first = toolMessages(bodies[1]!).map((m) => m.content as string);
    expect(first).toHaveLength(misuse.length);
    for (const text of first) {
      // One sentence each: no line break, short, and nothing of what lies outside or is hidden.
      expect(text, text).not.toMatch(/\n/);
      expect(text.length, text).toBeLessThan(300);
      expect(text).not.toMatch(/OUTSIDE-SECRET|HIDDEN-SECRET|"apiKey"/);
      expect(text).not.toContain(srv.tmp);
    }
    expect(first[0]).toMatch(/^Refused: .*"\.\."/);
    expect(first[1]).toMatch(/^Refused: .*absolute paths/);
    expect(first[2]).toMatch(/^Refused: "link\.txt" leads out of the workspace\.$/);
    expect(first[3]).toMatch(/^No file named "\.env"/);
    expect(first[4]).toBe(`Refused: at most ${MAX_PAGES_PER_READ} pages per read; ask for a smaller range such as "2-3".`);
    expect(first[5]).toMatch(/^Refused: pages must be/);
    expect(first[6]).toMatch(/^Refused: that satchel:\/\/ URI is of another conversation/);
    expect(first[7]).toMatch(/^Refused: the arguments are not valid JSON/);
    expect(first[8]).toMatch(/^Refused: read_file needs "name"/);
    expect(first[9]).toBe('Unknown tool "delete_everything": Satchel\'s tools are list_files, read_file, search_documents.');
    expect(first[10]).toMatch(/^Refused: search_documents needs "query"/);

    // Of the 1,011 calls, MAX_TOOL_CALLS_PER_TURN were run (or refused as misuse); every other got the sentence.
    const all = toolMessages(bodies[5]!).map((m) => m.content as string);
    const calls = misuse.length + 1000;
    expect(all).toHaveLength(calls);
    expect(all.filter((t) => t === TOO_MANY_CALLS)).toHaveLength(calls - MAX_TOOL_CALLS_PER_TURN);
    expect(all.filter((t) => t.includes('The harbour fee is 41 euros'))).toHaveLength(MAX_TOOL_CALLS_PER_TURN - misuse.length);
    expect(stream.frames().filter((f) => f.event === 'tool')).toHaveLength(MAX_TOOL_CALLS_PER_TURN);
    const stored = (await storedJson(srv.stateDir, id)).messages as Json[];
    expect(stored.at(-1)).toMatchObject({ role: 'assistant', content: 'I could read only page 2.' });
  });

  it(`asks for an answer after ${MAX_TOOL_ROUNDS} rounds, and says so when the model still only calls`, async () => {
    const id = await conversationWithReport('tools-rounds');
    for (let r = 0; r <= MAX_TOOL_ROUNDS; r++) agent.next(calling([{ id: `c${r}`, name: 'list_files', arguments: '{}' }]));
    await turn(id, 'Keep looking.');
    const bodies = completions();
    expect(bodies).toHaveLength(MAX_TOOL_ROUNDS + 1);
    expect(bodies.slice(0, MAX_TOOL_ROUNDS).every((b) => b.tool_choice === undefined && b.tools.length === 3)).toBe(true);
    expect(bodies.at(-1)!.tool_choice).toBe('none');
    const stored = (await storedJson(srv.stateDir, id)).messages as Json[];
    expect(stored.at(-1)!.content).toBe(NO_ANSWER_AFTER_TOOLS);
    expect(stored.at(-1)!.tool_activity).toHaveLength(MAX_TOOL_ROUNDS);
  });
});

describe('the per-connection switch and a server that refuses tools', () => {
  it('sends no tools once the connection has them switched off', async () => {
    const base = await settings();
    expect([base.tools, base.tools_refused]).toEqual([true, false]);
    const off = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, model: 'fake-model', kind: 'openai', tools: false });
    expect(((await off.json()) as Json).tools).toBe(false);
    const id = await srv.newSession();
    await turn(id, 'Hello');
    expect(completions()[0]).not.toHaveProperty('tools');
    expect((await srv.json('/api/agent/settings', { base_url: agent.baseUrl, model: 'fake-model', kind: 'openai', tools: 'yes' })).status).toBe(400);
    await srv.json('/api/agent/settings', { base_url: agent.baseUrl, model: 'fake-model', kind: 'openai', tools: true });
    agent.requests.length = 0;
    await turn(id, 'Hello again');
    expect(completions()[0]!.tools).toHaveLength(3);
  });

  it('a turn refused for its tools is sent again without them, and the connection remembers it', async () => {
    const id = await srv.newSession();
    agent.next({ status: 400, body: { error: { message: 'registry.ollama.ai/library/gemma:2b does not support tools' } } });
    agent.next(reply('Plain answer.'));
    const stream = await turn(id, 'Hello');
    expect(stream.frames().some((f) => f.event === 'apperror')).toBe(false);
    const [refused, again] = completions();
    expect(refused!.tools).toHaveLength(3);
    expect(again).not.toHaveProperty('tools');
    expect(((await storedJson(srv.stateDir, id)).messages as Json[]).at(-1)).toMatchObject({ content: 'Plain answer.' });
    expect((await settings()).tools_refused).toBe(true);
    agent.requests.length = 0;
    await turn(id, 'And now?');
    expect(completions()[0]).not.toHaveProperty('tools');
  });

  it('Test says a server refuses tools and remembers it; a Test where it takes them clears it', async () => {
    // The key check's plain completion is taken; the same offering one tool is refused, as llama.cpp without --jinja does.
    agent.next(reply('ok'));
    agent.next({ status: 400, body: { error: { message: 'tools param requires --jinja flag' } } });
    const refused = (await (await srv.json('/api/agent/test', {})).json()) as Json;
    expect(refused).toMatchObject({ ok: true, tools: false });
    expect(refused.message).toContain(TOOLS_REFUSED_SENTENCE);
    const probes = completions();
    expect(probes[0]).not.toHaveProperty('tools');
    expect(probes[1]!.tools.map((t: Json) => t.function.name)).toEqual(['list_files']);
    expect((await settings()).tools_refused).toBe(true);
    const id = await srv.newSession();
    agent.requests.length = 0;
    await turn(id, 'Hi');
    expect(completions()[0]).not.toHaveProperty('tools');

    const took = (await (await srv.json('/api/agent/test', {})).json()) as Json;
    expect(took).toMatchObject({ ok: true, tools: true });
    expect(took.message).not.toContain(TOOLS_REFUSED_SENTENCE);
    expect((await settings()).tools_refused).toBe(false);
  });
});
