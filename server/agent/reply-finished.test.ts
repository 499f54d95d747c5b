// The in-process hook the desktop shell's "reply ready" notification listens to (turns.ts onReplyFinished):
// told once per reply stored whole, with the conversation's title after the turn; never for a failed turn;
// a hook that throws changes nothing for the turn.
import { afterEach, expect, it } from 'vitest';
import type { FinishedReply } from './turns.js';
import { AgentError, type StreamTurn, type UpstreamEvent } from './types.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { TEST_AGENT_CONFIG } from '../testing/scripted-agent.js';

let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.stop();
  srv = undefined;
});

const answers: StreamTurn = async function* (): AsyncGenerator<UpstreamEvent> {
  yield { kind: 'token', text: 'Done: the invoice is paid.' };
};
const fails: StreamTurn = async function* (): AsyncGenerator<UpstreamEvent> {
  yield { kind: 'token', text: 'partial' };
  throw new AgentError('upstream_error', 'The agent failed');
};

async function waitForStored(s: TestServer, session: string, rows: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const res = await s.api(`/api/session?session_id=${session}`);
    const body = (await res.json()) as { session: { messages: unknown[]; active_stream_id?: string } };
    if (body.session.messages.length >= rows && !body.session.active_stream_id) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the turn was never stored');
}

it('is told once when a reply is stored, with the session and its new title', async () => {
  const told: FinishedReply[] = [];
  srv = await startTestServer({ agent: { streamTurn: answers, loadConfig: () => TEST_AGENT_CONFIG, onReplyFinished: (r) => told.push(r) } });
  const session = await srv.newSession();
  expect((await srv.json('/api/chat/start', { session_id: session, message: 'Is the invoice paid?' })).status).toBe(200);
  await waitForStored(srv, session, 2);
  expect(told).toEqual([{ session_id: session, profile: 'default', title: 'Is the invoice paid?' }]);
});

it('is not told of a failed turn; a hook that throws leaves the reply stored', async () => {
  const told: FinishedReply[] = [];
  srv = await startTestServer({ agent: { streamTurn: fails, loadConfig: () => TEST_AGENT_CONFIG, onReplyFinished: (r) => told.push(r) } });
  const session = await srv.newSession();
  await srv.json('/api/chat/start', { session_id: session, message: 'hello' });
  await waitForStored(srv, session, 2);
  expect(told).toEqual([]);
  await srv.stop();

  srv = await startTestServer({
    agent: { streamTurn: answers, loadConfig: () => TEST_AGENT_CONFIG, onReplyFinished: () => { throw new Error('hook broke'); } },
  });
  const other = await srv.newSession();
  await srv.json('/api/chat/start', { session_id: other, message: 'again' });
  await waitForStored(srv, other, 2);
});
