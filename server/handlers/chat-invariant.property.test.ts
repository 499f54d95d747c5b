// Issue 23's one invariant, as a property: over random sequences of send, stop, failure, Regenerate, Edit of
// any message of the person's, a switch of version, a switch of agent (a plain OpenAI server and two Hermes
// gateways) and a restart in the middle of a turn, what the model receives as the conversation is exactly what
// Satchel shows for that session, followed by the new message.
//
// The agents are modelled in-process: a plain server's model sees the request's messages; a Hermes gateway's
// model sees, with `X-Hermes-Session-Id`, the gateway's own database for that id followed by the new message
// (as the real gateway does: gateway/platforms/api_server.py), and without it the request's messages. The
// database keeps what the gateway would keep: the answer, the message of a failed turn, and for a stopped one
// something Satchel never showed, so a header sent out of step is caught. Over real sockets and the real
// gateway, chat-hermes.test.ts and chat-hermes-gateway.test.ts check the same for chosen sequences.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isTitleRequest } from '../agent/title.js';
import { AgentError, type AgentConfig, type ChatMessage, type StreamTurn, type UpstreamEvent } from '../agent/types.js';
import { TEST_TOKEN } from '../testing/harness.js';
import { startRestartable, type RestartableServer } from '../testing/restartable-server.js';
import { openSse } from '../testing/sse.js';

/** Random sequences per run of the suite, and steps per sequence: a few seconds in all on this machine. */
const RUNS = 40;
const MAX_STEPS = 12;
/** What a stopped turn leaves in a gateway's database that Satchel never shows. */
const UNSEEN = 'the gateway kept this, Satchel never showed it';

const AGENTS: AgentConfig[] = [
  { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', kind: 'openai', idleTimeoutMs: 60_000, contextChars: 200_000 },
  { baseUrl: 'http://127.0.0.1:8642/v1', model: 'hermes-agent', kind: 'hermes', apiKey: 'gateway-one-key-0123456789', idleTimeoutMs: 60_000, contextChars: 200_000 },
  { baseUrl: 'http://127.0.0.1:8643/v1', model: 'hermes-agent', kind: 'hermes', apiKey: 'gateway-two-key-0123456789', idleTimeoutMs: 60_000, contextChars: 200_000 },
];

type Said = [role: string, text: string];
type Behaviour = { kind: 'answer' } | { kind: 'stop' } | { kind: 'fail' } | { kind: 'restart' };

const textOf = (content: ChatMessage['content']): string =>
  typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('');

/** The agents Satchel talks to: what each model saw, and each gateway's database per Hermes session id. */
class Agents {
  agent = 0;
  behaviour: Behaviour = { kind: 'answer' };
  seen: Said[][] = [];
  private readonly databases = new Map<string, Said[]>();
  private answers = 0;
  /** Resolves when the model has begun answering (a stop or a restart comes then). */
  begun: Promise<void> = Promise.resolve();
  private beginNow = () => {};

  expectTurn(behaviour: Behaviour): void {
    this.behaviour = behaviour;
    this.begun = new Promise((resolve) => (this.beginNow = resolve));
  }

  readonly streamTurn: StreamTurn = (config, request, signal) => {
    const self = this;
    return (async function* (): AsyncGenerator<UpstreamEvent> {
      if (isTitleRequest(request.messages)) {
        yield { kind: 'token', text: 'A title' };
        return;
      }
      const sent: Said[] = request.messages.map((m) => [m.role, textOf(m.content)]);
      const key = request.hermesSessionId && config.kind === 'hermes' ? `${config.baseUrl} ${request.hermesSessionId}` : undefined;
      const database = key ? (self.databases.get(key) ?? []) : undefined;
      self.seen.push(database ? [...database, ...sent] : sent);
      const user = sent.at(-1)!;
      const keep = (...rows: Said[]) => key && self.databases.set(key, [...database!, user, ...rows]);
      const answer = `answer ${++self.answers}`;
      const behaviour = self.behaviour;
      self.behaviour = { kind: 'answer' };
      if (behaviour.kind === 'fail') {
        keep();
        throw new AgentError('upstream_error', 'The agent failed (500)');
      }
      yield { kind: 'token', text: answer };
      if (behaviour.kind === 'answer') {
        keep(['assistant', answer]);
        return;
      }
      keep(['assistant', UNSEEN]);
      self.beginNow();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      signal.throwIfAborted();
    })();
  };
}

let agents: Agents;
let srv: RestartableServer;

beforeAll(async () => {
  agents = new Agents();
  srv = await startRestartable('satchel-invariant-', { streamTurn: agents.streamTurn, loadConfig: () => AGENTS[agents.agent] });
});
afterAll(() => srv.close());

const call: RestartableServer['call'] = (method, pathname, body) => srv.call(method, pathname, body);

interface Row {
  role: string;
  content: string;
  _error?: boolean;
  versions?: { index: number; count: number };
}

const messagesOf = async (id: string): Promise<Row[]> => (await call('GET', `/api/session?session_id=${id}`)).json.session.messages;

/** The conversation a person reads in `rows`: their messages and the agent's replies, without Satchel's notes. */
function conversation(rows: Row[]): Said[] {
  return rows.filter((r) => !r._error && (r.role === 'user' || r.role === 'assistant') && r.content).map((r) => [r.role, r.content]);
}

/** One turn with `body`, behaving as `behaviour`; checks the model saw the shown conversation before `from`, then the message. */
async function turn(id: string, body: Record<string, unknown>, behaviour: Behaviour, from: number, text: string): Promise<void> {
  const shownBefore = conversation((await messagesOf(id)).slice(0, from));
  const seenBefore = agents.seen.length;
  agents.expectTurn(behaviour);
  const started = await call('POST', '/api/chat/start', { session_id: id, ...body });
  expect(started.status, JSON.stringify(started.json)).toBe(200);
  const stream = await openSse(srv.server.port, `/api/chat/stream?stream_id=${started.json.stream_id}`, { Authorization: `Bearer ${TEST_TOKEN}` });
  if (behaviour.kind === 'stop' || behaviour.kind === 'restart') await agents.begun;
  if (behaviour.kind === 'stop') await call('POST', '/api/chat/cancel', { stream_id: started.json.stream_id });
  if (behaviour.kind === 'restart') {
    await srv.restart();
  } else await stream.ended();
  expect(agents.seen.length).toBe(seenBefore + 1);
  expect(agents.seen.at(-1)).toEqual([...shownBefore, ['user', text]]);
}

const step = fc.oneof(
  fc.record({ op: fc.constant('send' as const), behaviour: fc.constantFrom<Behaviour['kind']>('answer', 'answer', 'stop', 'fail', 'restart') }),
  fc.record({ op: fc.constant('regenerate' as const), behaviour: fc.constantFrom<Behaviour['kind']>('answer', 'stop') }),
  fc.record({ op: fc.constant('edit' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('version' as const), pick: fc.nat(), version: fc.nat() }),
  fc.record({ op: fc.constant('agent' as const), to: fc.nat({ max: AGENTS.length - 1 }) }),
);

it(`the model sees exactly the conversation Satchel shows, over ${RUNS} random sequences of up to ${MAX_STEPS} steps`, async () => {
  let steps = 0;
  let turns = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: MAX_STEPS }), async (sequence) => {
      agents.agent = 1;
      const id = (await call('POST', '/api/session/new', {})).json.session.session_id as string;
      let n = 0;
      for (const s of sequence) {
        steps++;
        const rows = await messagesOf(id);
        const users = rows.flatMap((r, i) => (r.role === 'user' ? [i] : []));
        const text = `message ${++n}`;
        if (s.op === 'send') {
          await turn(id, { message: text }, { kind: s.behaviour }, rows.length, text);
          turns++;
        } else if (s.op === 'regenerate' && users.length > 0) {
          const at = users.at(-1)!;
          await turn(id, { regenerate: true }, { kind: s.behaviour }, at, rows[at]!.content);
          turns++;
        } else if (s.op === 'edit' && users.length > 0) {
          const at = users[s.pick % users.length]!;
          await turn(id, { regenerate: true, message_index: at, message: text }, { kind: 'answer' }, at, text);
          turns++;
        } else if (s.op === 'version') {
          const forks = rows.flatMap((r, i) => (r.versions ? [[i, r.versions.count] as const] : []));
          if (forks.length === 0) continue;
          const [at, count] = forks[s.pick % forks.length]!;
          const switched = await call('POST', '/api/session/version', { session_id: id, message_index: at, version: s.version % count });
          expect(switched.status, JSON.stringify(switched.json)).toBe(200);
        } else if (s.op === 'agent') {
          agents.agent = s.to;
        }
      }
      // And once more at the end, whatever the last step was.
      await turn(id, { message: 'last' }, { kind: 'answer' }, (await messagesOf(id)).length, 'last');
      turns++;
    }),
    { numRuns: RUNS },
  );
  console.log(`[invariant] ${RUNS} sequences, ${steps} steps, ${turns} turns: every request equal to the conversation shown`);
}, 120_000);
