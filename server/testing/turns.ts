// One conversation turn run to its end over real sockets, for tests against the fake agent: start it, follow
// its stream until it ends, and return the one chat completion the agent received for it.
import { expect } from 'vitest';
import type { FakeAgent, RecordedRequest, Script } from './fake-agent.js';
import type { TestServer } from './harness.js';
import { openSse } from './sse.js';

/** Runs one turn (`body` as POST /api/chat/start takes it) with `script` answering; the completion the agent got. */
export async function runTurn(srv: TestServer, agent: FakeAgent, body: Record<string, unknown>, script: Script): Promise<RecordedRequest> {
  agent.next(script);
  const before = agent.requests.length;
  const res = await srv.json('/api/chat/start', body);
  const json = (await res.json()) as { stream_id: string };
  expect(res.status, JSON.stringify(json)).toBe(200);
  await (await openSse(srv.port, `/api/chat/stream?stream_id=${json.stream_id}`)).ended();
  const sent = agent.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'));
  expect(sent).toHaveLength(1);
  return sent[0]!;
}
