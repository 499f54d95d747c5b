/// <reference lib="dom" />
// Issue 38, item 8: the server goes away in the middle of a reply (stopped, then started again on the same state
// folder, port and token, as the desktop app's restart does). For those seconds the thread keeps the turn in
// flight (the person's message and the partial reply) with "Satchel is restarting…", and once the server is back
// the stored turn takes its place. Before the fix the turn vanished until the restart was over.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { reply, startFakeAgent, type FakeAgent } from '../server/testing/fake-agent.js';
import { configureAgent, openApp } from './helpers/chat.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { launchServer, type Launched } from './helpers/server.js';

const KEY = 'sk-outage';
/** One token the two launches share: the page's cookie stays good, as in the desktop app's restart. */
const TOKEN = 'outage-e2e-token-0123456789abcdef';
const SLOW_TOKENS_PER_SECOND = 8;
const LONG_REPLY = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
/** Long enough that a turn dropped from the screen would be seen gone (the page retries every second). */
const DOWN_FOR_MS = 3_000;

/** The server as the product ships it, on `stateDir`, with the one TOKEN; `port` 0 picks one. */
const serve = (stateDir: string, workspace: string, port: number): Promise<Launched> =>
  launchServer([path.resolve(process.env.SATCHEL_E2E_ENTRY || 'dist/main/index.js'), '--server-only', '--port', String(port), '--state-dir', stateDir], {
    SATCHEL_WEBUI_DEFAULT_WORKSPACE: workspace,
    SATCHEL_WEBUI_TOKEN: TOKEN,
    SATCHEL_STT_PRELOAD: '0',
  });

let agent: FakeAgent;
test.beforeAll(async () => {
  agent = await startFakeAgent({ apiKey: KEY });
});
test.afterAll(async () => {
  await agent?.close();
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]) {
  test(`${viewport.width}×${viewport.height}: a restart mid-reply keeps the turn on screen, saying so, until the stored one replaces it`, async ({ page }, info) => {
    test.setTimeout(120_000);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-outage-'));
    const stateDir = path.join(root, 'state');
    const workspace = path.join(root, 'workspace');
    fs.mkdirSync(workspace);
    const running: Launched[] = [];
    try {
      const first = await serve(stateDir, workspace, 0);
      running.push(first);
      await openApp(page, { base: first.base, token: TOKEN });
      // Connected at the default size (the sidebar, where the agent button lives, is a drawer when small).
      await configureAgent(page, agent, KEY);
      await page.setViewportSize(viewport);
      agent.next(reply(LONG_REPLY, { tokensPerSecond: SLOW_TOKENS_PER_SECOND }));
      await page.getByTestId('composer-input').fill('Tell me a long story, please');
      await page.getByTestId('composer-input').press('Enter');
      const turn = page.getByTestId('live-turn');
      await expect(turn.getByTestId('assistant-text')).toContainText('word3');

      // The server stops (its shutdown stores the partial reply and ends the stream).
      await first.stop();
      running.pop();
      await expectTurnKept(page);
      await expect(turn.getByTestId('turn-restarting')).toHaveText('Satchel is restarting…');
      await page.screenshot({ path: path.join(screenshotDir(info), `outage-restarting-${viewport.width}x${viewport.height}.png`) });
      // Still there seconds later (the page asked the server several times meanwhile).
      await page.waitForTimeout(DOWN_FOR_MS);
      await expectTurnKept(page);
      await expect(turn.getByTestId('turn-restarting')).toBeVisible();

      const port = Number(new URL(first.base).port);
      running.push(await serve(stateDir, workspace, port));
      // Back: the stored turn replaces the live one, the partial reply marked as stopped by the shutdown.
      await expect(page.getByTestId('live-turn')).toHaveCount(0, { timeout: 30_000 });
      await expect(page.getByTestId('turn-restarting')).toHaveCount(0);
      const stored = page.getByTestId('message');
      await expect(stored.filter({ hasText: 'Tell me a long story, please' })).toHaveCount(1);
      await expect(stored.filter({ has: page.getByTestId('stopped-badge') }).last()).toContainText('word3');
      await expect(page.getByTestId('stop-marker').last()).toContainText('Stopped when Satchel shut down');
      await expect(page.getByTestId('send')).toBeVisible();
    } finally {
      for (const server of running) await server.stop();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
}

/** The turn in flight is on screen: the person's message and the partial reply. */
async function expectTurnKept(page: Page): Promise<void> {
  const turn = page.getByTestId('live-turn');
  await expect(turn).toHaveCount(1);
  await expect(turn).toContainText('Tell me a long story, please');
  await expect(turn.getByTestId('assistant-text')).toContainText('word3');
}
