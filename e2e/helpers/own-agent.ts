// A spec that configures an agent gets its own server and fake agent, so the agent it saves never reaches the
// other specs (they share the global server). Its tests run in order: they build on one conversation.
import { test } from '@playwright/test';
import { startFakeAgent, type FakeAgent } from '../../server/testing/fake-agent.js';
import { startServer, type RunningServer } from './server.js';

/** Starts both before the spec's first test (handing them to `use`) and stops both after its last. */
export function ownServerAndAgent(apiKey: string, use: (server: RunningServer, agent: FakeAgent) => void): void {
  let server: RunningServer | undefined;
  let agent: FakeAgent | undefined;
  test.describe.configure({ mode: 'serial' });
  test.beforeAll(async () => {
    agent = await startFakeAgent({ apiKey });
    server = await startServer();
    use(server, agent);
  });
  test.afterAll(async () => {
    await server?.stop();
    await agent?.close();
  });
}

export interface TwoAgents {
  server: RunningServer;
  /** Offers model-a. */
  a: FakeAgent;
  /** Offers model-b and model-b-large. */
  b: FakeAgent;
}

/**
 * Two fake agents (each with its own key and models) and one server, for the specs that switch a conversation
 * between agents: started before the spec's first test (handed to `use`), stopped after its last.
 */
export function ownServerAndTwoAgents(keys: { a: string; b: string }, use: (got: TwoAgents) => void): void {
  let got: Partial<TwoAgents> = {};
  test.describe.configure({ mode: 'serial' });
  test.beforeAll(async () => {
    got.a = await startFakeAgent({ apiKey: keys.a, models: ['model-a'] });
    got.b = await startFakeAgent({ apiKey: keys.b, models: ['model-b', 'model-b-large'] });
    got.server = await startServer();
    use(got as TwoAgents);
  });
  test.afterAll(async () => {
    await got.server?.stop();
    await Promise.all([got.a?.close(), got.b?.close()]);
    got = {};
  });
}
