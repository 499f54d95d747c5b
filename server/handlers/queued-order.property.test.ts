// Issue 34 as a property: rows written into a conversation while its turn runs (POST /api/session/message, quick
// capture into the current conversation, files opened with Satchel into it) are shown after the reply being
// written, stored after the turn's rows in the order written, whatever the turn's outcome (answered, stopped,
// failed, Satchel stopped mid-reply), and the next turn's model sees them: a plain server in the body's history,
// a Hermes gateway too (the header is not sent while its database lacks them). The agents are modelled in-process
// as in chat-invariant.property.test.ts: a gateway's model sees its own database for the id, then the new message.
import fs from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isTitleRequest } from '../agent/title.js';
import { AgentError, type AgentConfig, type ChatMessage, type StreamTurn, type UpstreamEvent } from '../agent/types.js';
import { TEST_TOKEN, waitUntil } from '../testing/harness.js';
import { startRestartable, type RestartableServer } from '../testing/restartable-server.js';
import { openSse } from '../testing/sse.js';

/** Random sequences per run, turns per sequence, writes per turn: a few seconds in all on this machine. */
const RUNS = 15;
const MAX_TURNS = 4;
const MAX_WRITES = 4;

const AGENTS: AgentConfig[] = [
  { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', kind: 'openai', idleTimeoutMs: 60_000, contextChars: 200_000 },
  { baseUrl: 'http://127.0.0.1:8642/v1', model: 'hermes-agent', kind: 'hermes', apiKey: 'gateway-one-key-0123456789', idleTimeoutMs: 60_000, contextChars: 200_000 },
];

type Said = [role: string, text: string];
type Outcome = 'answer' | 'stop' | 'fail' | 'restart';

const textOf = (content: ChatMessage['content']): string => (typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join(''));

/** The agents: each turn writes its first words, says it began, and waits for the test to let it end. */
class Agents {
  agent = 0;
  outcome: Outcome = 'answer';
  seen: Said[][] = [];
  private readonly databases = new Map<string, Said[]>();
  private answers = 0;
  begun: Promise<void> = Promise.resolve();
  private beginNow = () => {};
  private releaseNow = () => {};
  private released: Promise<void> = Promise.resolve();

  expectTurn(outcome: Outcome): void {
    this.outcome = outcome;
    this.begun = new Promise((resolve) => (this.beginNow = resolve));
    this.released = new Promise((resolve) => (this.releaseNow = resolve));
  }

  release(): void {
    this.releaseNow();
  }

  readonly streamTurn: StreamTurn = (config, request, signal) => {
    const self = this;
    return (async function* (): AsyncGenerator<UpstreamEvent> {
      if (isTitleRequest(request.messages)) {
        yield { kind: 'token', text: 'A title' };
        return;
      }
      // The new turn's own message is the person's words (its first part) followed by what Satchel adds to it: the
      // workspace's listing and its changed files, the conversation's documents (issue 36). The invariant is about
      // the words: the history the agent gets is what the screen shows, then the person's new message.
      const sent: Said[] = request.messages.map((m, i, all) => [m.role, i === all.length - 1 && typeof m.content !== 'string' ? textOf(m.content.slice(0, 1)) : textOf(m.content)]);
      const key = request.hermesSessionId && config.kind === 'hermes' ? `${config.baseUrl} ${request.hermesSessionId}` : undefined;
      const database = key ? (self.databases.get(key) ?? []) : undefined;
      self.seen.push(database ? [...database, ...sent] : sent);
      const user = sent.at(-1)!;
      const keep = (...rows: Said[]) => key && self.databases.set(key, [...database!, user, ...rows]);
      const answer = `answer ${++self.answers}`;
      const outcome = self.outcome;
      yield { kind: 'token', text: answer };
      self.beginNow();
      await Promise.race([self.released, new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
      signal.throwIfAborted();
      if (outcome === 'fail') {
        keep();
        throw new AgentError('upstream_error', 'The agent failed (500)');
      }
      keep(['assistant', answer]);
    })();
  };
}

let agents: Agents;
let srv: RestartableServer;

beforeAll(async () => {
  agents = new Agents();
  srv = await startRestartable('satchel-queued-', { streamTurn: agents.streamTurn, loadConfig: () => AGENTS[agents.agent] });
});
afterAll(() => srv.close());

const call: RestartableServer['call'] = (method, pathname, body) => srv.call(method, pathname, body);

interface Row {
  role: string;
  content: string;
  _error?: boolean;
  arrival?: unknown;
  attachments?: { filename: string }[];
}

const sessionOf = async (id: string): Promise<{ messages: Row[]; queued_messages?: Row[] }> => (await call('GET', `/api/session?session_id=${id}`)).json.session;

/** A row as the test compares it: role and text (an arrival by its files). */
const brief = (r: Row): string => (r.arrival ? `arrival:${(r.attachments ?? []).map((a) => a.filename).join(',')}` : `${r.role}:${r.content}`);

type Write = { via: 'message' | 'capture' | 'open'; summary: boolean };

const turnStep = fc.record({
  outcome: fc.constantFrom<Outcome>('answer', 'answer', 'stop', 'fail', 'restart'),
  agent: fc.nat({ max: AGENTS.length - 1 }),
  writes: fc.array(fc.record({ via: fc.constantFrom<Write['via']>('message', 'message', 'capture', 'open'), summary: fc.boolean() }), { maxLength: MAX_WRITES }),
});

/** The rows the writes make, in order: consecutive opened files join one arrival row (inbox/arrivals.ts). */
function expectedRows(written: { via: Write['via']; text: string }[]): string[] {
  const out: string[] = [];
  for (const w of written) {
    if (w.via !== 'open') out.push(`user:${w.text}`);
    else if (out.at(-1)?.startsWith('arrival:')) out[out.length - 1] += `,${w.text}`;
    else out.push(`arrival:${w.text}`);
  }
  return out;
}

it(`rows written while a turn runs follow its rows in the order written, over ${RUNS} random sequences`, async () => {
  let writesMade = 0;
  let files = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(turnStep, { minLength: 1, maxLength: MAX_TURNS }), async (turns) => {
      const id = (await call('POST', '/api/session/new', {})).json.session.session_id as string;
      let n = 0;
      for (const t of turns) {
        agents.agent = t.agent;
        const before = (await sessionOf(id)).messages.map(brief);
        const message = `message ${++n}`;
        agents.expectTurn(t.outcome);
        const seenBefore = agents.seen.length;
        const started = await call('POST', '/api/chat/start', { session_id: id, message });
        expect(started.status, JSON.stringify(started.json)).toBe(200);
        const stream = await openSse(srv.server.port, `/api/chat/stream?stream_id=${started.json.stream_id}`, { Authorization: `Bearer ${TEST_TOKEN}` });
        await agents.begun;
        // The model saw the conversation as it was shown, every row written during earlier turns included.
        const shownBefore = (await sessionOf(id)).messages.filter((r) => !r._error && !r.arrival && (r.role === 'user' || r.role === 'assistant')).map((r): Said => [r.role, r.content]);
        if (!before.some((b) => b.startsWith('arrival:'))) expect(agents.seen.at(-1)).toEqual([...shownBefore, ['user', message]]);
        expect(agents.seen.length).toBe(seenBefore + 1);

        const written: { via: Write['via']; text: string }[] = [];
        for (const w of t.writes) {
          const text = `note ${++writesMade}`;
          if (w.via === 'message') {
            const res = await call('POST', '/api/session/message', { session_id: id, text, ...(w.summary ? { answer: 'summary' } : {}) });
            expect(res.status, JSON.stringify(res.json)).toBe(200);
            expect(res.json.queued).toBe(true);
          } else if (w.via === 'capture') {
            const res = await call('POST', '/api/capture/send', { destination: 'current', session_id: id, text });
            expect(res.status, JSON.stringify(res.json)).toBe(200);
          } else {
            const name = `file-${++files}.txt`;
            const file = path.join(srv.tmp, name);
            await fs.writeFile(file, text);
            const opened = await srv.server.desktop.addToInbox([file], 'current');
            expect(opened.sessionId).toBe(id);
            written.push({ via: 'open', text: name });
            await waitUntil(async () => JSON.stringify((await sessionOf(id)).queued_messages ?? []).includes(name), `the arrival of ${name}`);
            continue;
          }
          written.push({ via: w.via, text });
        }
        // Shown while the reply is written: the stored rows as before, the rows written waiting after the turn.
        const during = await sessionOf(id);
        expect(during.messages.map(brief)).toEqual(before);
        expect((during.queued_messages ?? []).map(brief)).toEqual(expectedRows(written));

        if (t.outcome === 'stop') await call('POST', '/api/chat/cancel', { stream_id: started.json.stream_id });
        if (t.outcome === 'restart') {
          await srv.restart();
        } else {
          agents.release();
          await stream.ended();
        }
        const after = await sessionOf(id);
        expect(after.queued_messages).toBeUndefined();
        const rows = after.messages.map(brief);
        const queued = expectedRows(written);
        // The turn's own rows: the message, what the agent wrote (an answer or its partial words), and an outcome row.
        const turnRows = rows.slice(before.length, rows.length - queued.length);
        expect(turnRows[0]).toBe(`user:${message}`);
        expect(turnRows.length).toBe(t.outcome === 'answer' ? 2 : 3);
        expect(rows.slice(0, before.length)).toEqual(before);
        expect(rows.slice(rows.length - queued.length)).toEqual(queued);
      }
      // One more turn: its model sees the rows written during the last one (a gateway gets the history, no header).
      agents.agent = 1;
      agents.expectTurn('answer');
      const shown = (await sessionOf(id)).messages;
      const started = await call('POST', '/api/chat/start', { session_id: id, message: 'last' });
      expect(started.status).toBe(200);
      await agents.begun;
      const seen = agents.seen.at(-1)!.map(([, text]) => text).join('\n');
      for (const r of shown.filter((m) => m.role === 'user')) expect(seen).toContain(r.content);
      agents.release();
      await (await openSse(srv.server.port, `/api/chat/stream?stream_id=${started.json.stream_id}`, { Authorization: `Bearer ${TEST_TOKEN}` })).ended();
    }),
    { numRuns: RUNS },
  );
  console.log(`[queued-order] ${RUNS} sequences, ${writesMade} messages and ${files} files written while a reply streamed: each stored after its turn, in order`);
}, 180_000);
