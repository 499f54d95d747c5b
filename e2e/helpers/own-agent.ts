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
