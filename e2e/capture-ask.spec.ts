/// <reference lib="dom" />
// Issue 38, item 9: quick capture can ask the agent in the current conversation (not only a new one), and after
// "Ask" in a new conversation the window names that one as current (it kept naming the old one). The capture
// window at its desktop size (560×420) beside the main window at 1280×800 and at 800×600.
import AxeBuilder from '@axe-core/playwright';
import path from 'node:path';
import { test, expect, type BrowserContext, type Page } from '@playwright/test';
import { reply, startFakeAgent, type FakeAgent } from '../server/testing/fake-agent.js';
import { storedSession } from '../server/testing/stored-session.js';
import { completionRequests, configureAgent, lastUserMessage, openApp, partsOf } from './helpers/chat.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { startServer, type RunningServer } from './helpers/server.js';

const KEY = 'sk-capture-ask-e2e';
const CAPTURE_VIEWPORT = { width: 560, height: 420 };

let server: RunningServer;
let agent: FakeAgent;
test.beforeAll(async () => {
  agent = await startFakeAgent({ apiKey: KEY });
  server = await startServer();
});
test.afterAll(async () => {
  await server?.stop();
  await agent?.close();
});

const userTexts = async (id: string) =>
  ((await storedSession(server.stateDir, id))?.messages ?? []).filter((m) => m.role === 'user').map((m) => String(m.content));

/** The capture window as the shell opens it: a second page of the same browser, opened by the main window. */
async function openCapture(context: BrowserContext, main: Page): Promise<Page> {
  const [page] = await Promise.all([
    context.waitForEvent('page'),
    main.evaluate(([w, h]) => void window.open('/capture', '_blank', `popup,width=${w},height=${h}`), [CAPTURE_VIEWPORT.width, CAPTURE_VIEWPORT.height] as const),
  ]);
  await page.setViewportSize(CAPTURE_VIEWPORT);
  await expect(page.getByTestId('capture')).toHaveAttribute('data-ready', 'true');
  return page;
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]) {
  test(`${viewport.width}×${viewport.height}: Ask in the current conversation, then in a new one that becomes the current`, async ({ browser }, info) => {
    test.setTimeout(120_000);
    const context = await browser.newContext();
    try {
      const main = await context.newPage();
      await openApp(main, server);
      await configureAgent(main, agent, KEY);
      const title = `Trip planning ${viewport.width}`;
      const current = await main.evaluate(async (t) => {
        const post = (p: string, body: unknown) => fetch(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
        const { session } = await post('/api/session/new', {});
        await post('/api/session/rename', { session_id: session.session_id, title: t });
        return session.session_id as string;
      }, title);
      await main.setViewportSize(viewport);
      await main.goto(`${server.base}/#s=${current}`);
      await expect(main.getByTestId('app')).toHaveAttribute('data-ready', 'true');

      const page = await openCapture(context, main);
      await expect(page.locator('#destination-current-label')).toHaveText(`Current conversation: ${title}`);
      // Keyboard only: the question, then where to ask (choosing it chooses Ask), then Enter in the field.
      await page.getByTestId('capture-input').fill('Which train goes to Porto?');
      await page.getByTestId('ask-in').selectOption('current');
      await expect(page.getByTestId('destination-ask')).toBeChecked();
      await expect(page.getByTestId('ask-in')).toHaveValue('current');
      await expect(page.locator('#ask-in-current')).toHaveText(`in “${title}”`);
      expect(await axeSerious(page)).toEqual([]);
      await page.screenshot({ path: path.join(screenshotDir(info), `capture-ask-in-current-${viewport.width}.png`) });
      const before = completionRequests(agent).length;
      agent.next(reply('The Alfa Pendular, from Lisbon.'));
      await page.getByTestId('capture-input').press('Enter');
      await expect(page.getByTestId('capture-notice')).toHaveText(`Asked the agent in “${title}”: the reply appears in the Satchel window.`);
      await expect.poll(() => completionRequests(agent).length).toBe(before + 1);
      expect(partsOf(lastUserMessage(completionRequests(agent).at(-1))).map((p) => p.text).join('')).toContain('Which train goes to Porto?');
      // Asked there, not in a new conversation: the main window stays on it and shows the reply.
      await expect(main.getByText('The Alfa Pendular, from Lisbon.')).toBeVisible({ timeout: 20_000 });
      expect(new URL(main.url()).hash).toBe(`#s=${current}`);
      await expect.poll(() => userTexts(current)).toEqual(['Which train goes to Porto?']);

      // Ask in a new conversation: it is the current one afterwards, and the window names it.
      await page.getByTestId('ask-in').selectOption('new');
      agent.next(reply('Take the A1 motorway.'));
      await page.getByTestId('capture-input').fill('And by car?');
      await page.getByTestId('capture-input').press('Enter');
      await expect(page.getByTestId('capture-notice')).toHaveText('Asked the agent: the reply appears in the Satchel window.');
      await expect.poll(() => new URL(main.url()).hash).not.toBe(`#s=${current}`);
      const asked = new URL(main.url()).hash.replace('#s=', '');
      await expect(main.getByText('Take the A1 motorway.')).toBeVisible({ timeout: 20_000 });
      await expect(page.locator('#destination-current-label')).not.toContainText(title);
      await expect(page.locator('#ask-in-current')).not.toHaveText(`in “${title}”`);
      // And a follow-up asked "in the current conversation" goes to that new one.
      agent.next(reply('About three hours.'));
      await page.getByTestId('ask-in').selectOption('current');
      await page.getByTestId('capture-input').fill('How long does it take?');
      await page.getByTestId('capture-input').press('Enter');
      await expect(main.getByText('About three hours.')).toBeVisible({ timeout: 20_000 });
      await expect.poll(() => userTexts(asked)).toEqual(['And by car?', 'How long does it take?']);
      expect(await userTexts(current)).toEqual(['Which train goes to Porto?']);
      await page.close();
    } finally {
      await context.close();
    }
  });
}

async function axeSerious(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
