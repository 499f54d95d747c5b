// Issue 36 over real sockets, against an OpenAI-compatible fake that records every request: a PDF attached in
// turn 1 reaches the agent's request again in turn 2 (whole, or its page 2 as passages), the `context` frame says
// what the agent was given, the user row keeps it in every outcome, and POST /api/chat/context previews it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunk, contentChunk, reply, startFakeAgent, type FakeAgent, type RecordedRequest, type Script } from '../testing/fake-agent.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';
import { openSse, type SseFrame } from '../testing/sse.js';
import { buildPdf } from '../workspace/testing/pdf.js';
import { storedJson } from '../testing/stored-session.js';

const KEY = 'plain-key-0123456789abcdef';
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

async function useAgent(contextChars: number): Promise<void> {
  const res = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: KEY, model: 'fake-model', kind: 'openai', context_chars: contextChars });
  expect(res.status, await res.clone().text()).toBe(200);
}

const page = (lines: string[]) => `BT /F1 9 Tf 40 760 Td ${lines.map((l) => `(${l}) Tj 0 -11 Td`).join(' ')} ET`;
const topic = (n: number, words: string) => Array.from({ length: n }, (_, i) => `Line ${i + 1}: ${words}.`);
const PDF = buildPdf({
  pages: [page(topic(14, 'quarterly revenue in the northern region grew')), page(topic(14, 'the Zephyr pump warranty covers seals for seven years')), page(topic(14, 'shipping to the Lisbon depot leaves on Tuesdays'))],
});

async function uploadPdf(session: string): Promise<Record<string, unknown>> {
  const { status, body } = await postMultipart(srv, '/api/upload', [
    { name: 'session_id', content: session },
    { name: 'file', filename: 'Quarterly_report_Q3.pdf', content: PDF, type: 'application/pdf' },
  ]);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

/** One turn to its end; its frames and the completion the agent received. */
async function turn(body: Record<string, unknown>, script: Script = reply('Noted.')): Promise<{ frames: SseFrame[]; sent: RecordedRequest }> {
  agent.next(script);
  const before = agent.requests.length;
  const res = await srv.json('/api/chat/start', body);
  const json = (await res.json()) as { stream_id: string };
  expect(res.status, JSON.stringify(json)).toBe(200);
  const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${json.stream_id}`);
  await stream.ended();
  const sent = agent.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'));
  expect(sent).toHaveLength(1);
  return { frames: stream.frames(), sent: sent[0]! };
}

const contextFrame = (frames: SseFrame[]) => JSON.parse(frames.find((f) => f.event === 'context')!.data!) as Record<string, unknown>;

describe('the context of a turn', () => {
  it('sends the earlier PDF again, says so in the context frame, and keeps the report on the user row', async () => {
    await useAgent(200_000);
    const id = await srv.newSession();
    const pdf = await uploadPdf(id);
    const first = await turn({ session_id: id, message: 'Here is the report', attachments: [pdf] });
    // Who is asked (issue 38, item 6), then what it is given, then its words.
    expect(first.frames.map((f) => f.event).slice(0, 3)).toEqual(['answered_by', 'context', 'token']);
    expect(contextFrame(first.frames)).toEqual({ documents: [{ name: 'Quarterly_report_Q3.pdf', origin: 'attachment', state: 'whole' }], summary: 'The agent has the one document whole', via: 'sent', session_id: id });

    const second = await turn({ session_id: id, message: 'What did page 2 say about the warranty?' });
    const body = JSON.stringify(second.sent.body);
    expect(body).toContain('Line 14: the Zephyr pump warranty covers seals for seven years.');
    expect(body).not.toContain(srv.stateDir);
    expect(contextFrame(second.frames)).toMatchObject({ documents: [{ name: 'Quarterly_report_Q3.pdf', state: 'whole' }], via: 'sent' });
    const stored = await storedJson(srv.stateDir, id);
    const users = (stored.messages as Array<{ role: string; context?: unknown }>).filter((m) => m.role === 'user');
    expect(users.map((u) => (u.context as { summary: string }).summary)).toEqual(['The agent has the one document whole', 'The agent has the one document whole']);
    // And as GET /api/session shows it.
    const shown = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: { messages: Array<{ context?: unknown }> } };
    expect(shown.session.messages[2]!.context).toMatchObject({ documents: [{ name: 'Quarterly_report_Q3.pdf', state: 'whole' }] });
  });

  it("with a small budget sends page 2's passages, reports them, and keeps the report when the turn fails or is stopped", async () => {
    await useAgent(1_800);
    const id = await srv.newSession();
    const pdf = await uploadPdf(id);
    await turn({ session_id: id, message: 'Here is the report', attachments: [pdf] });
    const second = await turn({ session_id: id, message: 'What did page 2 say about the pump warranty?' }, { status: 500, body: { error: { message: 'boom' } } });
    const body = JSON.stringify(second.sent.body);
    expect(body).toContain('--- \\"Quarterly_report_Q3.pdf\\", page 2 ---');
    expect(body).not.toContain('northern region');
    const report = { documents: [{ name: 'Quarterly_report_Q3.pdf', origin: 'attachment', state: 'passages', where: 'page 2' }], summary: 'The agent does not have the one document whole', via: 'sent' };
    expect(contextFrame(second.frames)).toEqual({ ...report, session_id: id });
    expect(second.frames.map((f) => f.event)).toContain('apperror');
    let rows = (await storedJson(srv.stateDir, id)).messages as Array<{ role: string; context?: unknown }>;
    expect(rows.filter((m) => m.role === 'user').at(-1)!.context).toEqual(report);

    // Stopped: the frame went out before the first word, and the row keeps it.
    agent.next({ frames: [chunk({ role: 'assistant', content: '' }), contentChunk('Once upon')], end: 'stall' });
    const { stream_id } = (await (await srv.json('/api/chat/start', { session_id: id, message: 'and the pump warranty again?' })).json()) as { stream_id: string };
    const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${stream_id}`);
    await stream.until((f) => f.event === 'token');
    await srv.api(`/api/chat/cancel?stream_id=${stream_id}`);
    await stream.ended();
    expect(stream.frames().map((f) => f.event).slice(0, 2)).toEqual(['answered_by', 'context']);
    rows = (await storedJson(srv.stateDir, id)).messages as Array<{ role: string; context?: unknown }>;
    expect(rows.filter((m) => m.role === 'user').at(-1)!.context).toMatchObject({ documents: [{ state: 'passages', where: 'page 2' }] });
  });
});

describe('POST /api/chat/context', () => {
  it('answers what the next turn would give, and what was whole before and would not be now', async () => {
    await useAgent(200_000);
    const id = await srv.newSession();
    const pdf = await uploadPdf(id);
    await turn({ session_id: id, message: 'Here is the report', attachments: [pdf] });
    const before = agent.requests.length;
    const whole = await srv.json('/api/chat/context', { session_id: id, text: 'and page 2?' });
    expect(whole.status).toBe(200);
    expect(await whole.json()).toEqual({ documents: [{ name: 'Quarterly_report_Q3.pdf', origin: 'attachment', state: 'whole' }], summary: 'The agent has the one document whole', via: 'sent', left_out: [] });
    // A draft that would fill the budget: the PDF is no longer whole.
    await useAgent(1_800);
    const tight = await srv.json('/api/chat/context', { session_id: id, text: 'What did page 2 say about the pump warranty?' });
    expect(await tight.json()).toEqual({
      documents: [{ name: 'Quarterly_report_Q3.pdf', origin: 'attachment', state: 'passages', where: 'page 2' }],
      summary: 'The agent does not have the one document whole',
      via: 'sent',
      left_out: ['Quarterly_report_Q3.pdf'],
    });
    // The agent was not asked, and nothing was stored.
    expect(agent.requests.length).toBe(before);
    expect(((await storedJson(srv.stateDir, id)).messages as unknown[]).length).toBe(2);
  });

  it('refuses a bad body in one sentence, and an unknown session with 404', async () => {
    const id = await srv.newSession();
    const post = async (body: unknown) => {
      const res = await srv.json('/api/chat/context', body as Record<string, unknown>);
      return { status: res.status, json: await res.json() };
    };
    expect(await post({ text: 'hi' })).toEqual({ status: 400, json: { error: 'Missing required field(s): session_id' } });
    expect(await post({ session_id: id, text: 42 })).toEqual({ status: 400, json: { error: 'text must be a string' } });
    expect(await post({ session_id: id, attachments: 'x' })).toEqual({ status: 400, json: { error: 'Invalid attachments' } });
    expect(await post({ session_id: id, attachments: [{ path: '/etc/passwd' }] })).toEqual({ status: 400, json: { error: 'Unknown attachment' } });
    expect(await post({ session_id: 'abcdefabcdef', text: 'hi' })).toEqual({ status: 404, json: { error: 'Session not found' } });
  });
});
