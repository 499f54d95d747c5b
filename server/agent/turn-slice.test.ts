// A turn whose agent has a flood of events buffered must still let the event loop serve other requests
// (turns.ts TURN_SLICE_MS): the events of a buffered socket resolve as microtasks, one after another, and without
// the slice nothing else ran until the last of them. Measured without a clock: a callback queued with
// setImmediate when the flood starts must have run before the agent's last event is taken.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StreamTurn, UpstreamEvent } from './types.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { TEST_AGENT_CONFIG } from '../testing/scripted-agent.js';

/** Far more than TURN_SLICE_MS of work however fast the machine (each event is redacted and framed). */
const EVENTS = 100_000;
const TURN_DEADLINE_MS = 60_000;

let srv: TestServer;
let loopRanAt = -1;
let taken = 0;
let finished!: () => void;
const done = new Promise<void>((resolve) => (finished = resolve));

const flood: StreamTurn = async function* (): AsyncGenerator<UpstreamEvent> {
  setImmediate(() => (loopRanAt = taken));
  // No await between events: every next() resolves at once, as with a socket that has a flood buffered.
  for (taken = 0; taken < EVENTS; taken++) yield { kind: 'token', text: 'a ' };
  finished();
};

beforeAll(async () => {
  srv = await startTestServer({ agent: { streamTurn: flood, loadConfig: () => TEST_AGENT_CONFIG } });
});
afterAll(async () => {
  await srv?.stop();
});

it('a flooding agent leaves the event loop to other requests while its turn works through the flood', async () => {
  const session = await srv.newSession();
  const res = await srv.json('/api/chat/start', { session_id: session, message: 'flood' });
  expect(res.status).toBe(200);
  await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error('the flood never ended')), TURN_DEADLINE_MS))]);
  expect(loopRanAt).toBeGreaterThanOrEqual(0);
  expect(loopRanAt).toBeLessThan(EVENTS);
}, TURN_DEADLINE_MS + 5_000);
