/// <reference lib="dom" />
// The conversation's screens in both themes (issue 23): a reply with its versions (‹ 2/2 ›), an Edit under way,
// and a stopped reply. Its own server and fake agent (an agent is configured); the pictures go where
// screenshots.spec.ts's go (helpers/screenshot-dir.ts).
import path from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { newSession } from './fixtures.js';
import { configureAgent, openApp } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import type { RunningServer } from './helpers/server.js';

const KEY = 'sk-screenshots-key';
/** Slow enough to press Stop mid-reply. */
const SLOW_TOKENS_PER_SECOND = 8;
let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});

/** The turn is over and drawn from the stored session (the last reply offers Regenerate), no toast left. */
async function settled(page: Page): Promise<void> {
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId('message').last().getByTestId('regenerate')).toBeVisible();
  for (const toast of await page.getByTestId('toast').all()) await toast.getByRole('button').click();
  await expect(page.getByTestId('toast')).toHaveCount(0);
}

async function send(page: Page, text: string, answer: Parameters<FakeAgent['next']>[0]): Promise<void> {
  agent.next(answer);
  await page.getByTestId('composer-input').fill(text);
  await page.getByTestId('send').click();
}

for (const scheme of ['light', 'dark'] as const) {
  test(`conversation screenshots (${scheme})`, async ({ page }, info) => {
    const OUT = screenshotDir(info);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    await openApp(page, server);
    if (scheme === 'light') await configureAgent(page, agent, KEY);
    await newSession(page, server.workspace);

    await send(page, 'Suggest a name for a bakery in Porto', reply('**Miolo** — the soft inside of the bread.'));
    await settled(page);
    agent.next(reply('**Forno da Ribeira**, after the riverside where it would stand.'));
    await page.getByTestId('regenerate').click();
    await settled(page);
    await expect(page.getByTestId('version-text')).toHaveText('2/2');
    await send(page, 'And a slogan?', reply('*Fresh from the Ribeira, every morning.*'));
    await settled(page);
    const listed = page.locator('[data-testid="session-item"][aria-current="page"]');
    await expect(listed).toContainText('4 msg');
    await page.screenshot({ path: path.join(OUT, `conversation-versions-${scheme}.png`) });

    await page.locator('[data-role="user"]').first().getByTestId('edit-message').click();
    await page.getByTestId('composer-input').fill('Suggest a name for a café in Lisbon');
    await expect(page.getByTestId('edit-banner')).toBeVisible();
    await page.screenshot({ path: path.join(OUT, `conversation-editing-${scheme}.png`) });
    await page.getByTestId('composer-input').press('Escape');

    const story = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    await send(page, 'Tell me the story of the bakery', reply(story, { tokensPerSecond: SLOW_TOKENS_PER_SECOND }));
    await expect(page.getByTestId('assistant-live').getByTestId('assistant-text')).toContainText('word3');
    await page.getByTestId('stop').click();
    await expect(page.getByTestId('stopped-badge').last()).toBeVisible();
    await expect(page.getByTestId('stop-marker')).toBeVisible();
    await expect(page.getByTestId('send')).toBeVisible();
    await expect(listed).toContainText('7 msg');
    await page.screenshot({ path: path.join(OUT, `conversation-stopped-${scheme}.png`) });
  });
}
