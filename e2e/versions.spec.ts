/// <reference lib="dom" />
// Versions in the browser (issue 23, "nothing is removed without a trace"): Regenerate keeps the earlier reply
// behind ‹ 1/2 ›, Edit of any earlier message is a visible state that Esc leaves with the composer as it was,
// and what the agent is sent next is the version on screen.
import { test, expect, type Page } from '@playwright/test';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { completionRequests, configureAgent, openApp, type SentMessage } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';

const KEY = 'sk-versions-key';
let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});

async function send(page: Page, text: string, answer: string): Promise<void> {
  agent.next(reply(answer));
  await page.getByTestId('composer-input').fill(text);
  await page.getByTestId('send').click();
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId('assistant-text').last()).toHaveText(answer);
}

/** The conversation the agent was sent last, as [role, text] pairs. */
function lastSent(): [string, string][] {
  const body = completionRequests(agent).at(-1)?.body as { messages: SentMessage[] };
  return body.messages.map((m) => [m.role, typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('')]);
}

const shownTexts = (page: Page) => page.locator('[data-testid="message-text"], [data-testid="assistant-text"]').allTextContents();

test('Regenerate keeps the earlier reply behind ‹ 1/2 ›; the version on screen is the one sent next, also after a reload', async ({ page }) => {
  await openApp(page, server);
  await configureAgent(page, agent, KEY);
  await send(page, 'Name a colour', 'Teal.');
  agent.next(reply('Amber.'));
  await page.getByTestId('regenerate').click();
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
  // The switcher is on the reply (only the replies differ).
  const reply2 = page.getByTestId('message').filter({ hasText: 'Amber.' });
  await expect(reply2.getByTestId('version-text')).toHaveText('2/2');
  await expect(reply2.getByTestId('version-next')).toBeDisabled();
  await reply2.getByTestId('version-previous').click();
  await expect(page.getByTestId('version-text')).toHaveText('1/2');
  await expect.poll(() => shownTexts(page)).toEqual(['Name a colour', 'Teal.']);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('version-text')).toHaveText('1/2');
  await expect.poll(() => shownTexts(page)).toEqual(['Name a colour', 'Teal.']);
  await send(page, 'And another?', 'Coral.');
  expect(lastSent()).toEqual([
    ['user', 'Name a colour'],
    ['assistant', 'Teal.'],
    ['user', 'And another?'],
  ]);
});

test('Edit of an earlier message: a visible state, Esc gives the composer back, Send makes a new version from there', async ({ page }) => {
  await openApp(page, server);
  // The conversation of the test before: Name a colour / Teal. / And another? / Coral.
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Coral.');
  await page.getByTestId('composer-input').fill('a note I have not sent');
  const first = page.locator('[data-role="user"]').first();
  await first.getByTestId('edit-message').click();
  const banner = page.getByTestId('edit-banner');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('Editing your message · Esc to cancel');
  await expect(first).toHaveClass(/msg-editing/);
  await expect(page.getByTestId('composer-input')).toHaveValue('Name a colour');
  await expect(page.getByTestId('send')).toHaveText('Send as new version');
  // Esc: nothing happened, and what was typed before is back.
  await page.getByTestId('composer-input').press('Escape');
  await expect(banner).toBeHidden();
  await expect(page.getByTestId('composer-input')).toHaveValue('a note I have not sent');
  await expect(page.getByTestId('send')).toHaveText('Send');
  await expect(first).not.toHaveClass(/msg-editing/);

  await first.getByTestId('edit-message').click();
  await page.getByTestId('composer-input').fill('Name a flower');
  agent.next(reply('Iris.'));
  await page.getByTestId('send').click();
  // The reply first: right after the click the live turn may not be drawn yet, so "no live turn" proves nothing.
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Iris.');
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
  await expect.poll(() => shownTexts(page)).toEqual(['Name a flower', 'Iris.']);
  // The agent got the edited message alone: nothing of the version it replaced.
  expect(lastSent()).toEqual([['user', 'Name a flower']]);
  // A second text of the first message ("Name a colour", regenerated once, and this one): its switcher is on the
  // message and counts what was said, 2/2 — not 3/3 with two identical messages (issue 38); the unsent note is
  // back in the composer.
  const firstUser = page.locator('[data-role="user"]').first();
  const versions = firstUser.getByTestId('version-text');
  await expect(versions).toHaveText('2/2');
  await expect(page.getByTestId('version-text')).toHaveCount(1);
  await expect(page.getByTestId('composer-input')).toHaveValue('a note I have not sent');
  await expect(banner).toBeHidden();

  // Back to the first text: its latest reply, with the replies' own switcher under it; then the first reply, the
  // whole first conversation with what followed it.
  await firstUser.getByTestId('version-previous').click();
  await expect(versions).toHaveText('1/2');
  await expect.poll(() => shownTexts(page)).toEqual(['Name a colour', 'Amber.']);
  const replyVersions = page.locator('[data-role="assistant"]').first().getByTestId('version-text');
  await expect(replyVersions).toHaveText('2/2');
  await page.locator('[data-role="assistant"]').first().getByTestId('version-previous').click();
  await expect(replyVersions).toHaveText('1/2');
  await expect(versions).toHaveText('1/2');
  await expect.poll(() => shownTexts(page)).toEqual(['Name a colour', 'Teal.', 'And another?', 'Coral.']);
  // The note typed before the edit survived a reload too: the stored draft was never the edited text.
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('composer-input')).toHaveValue('a note I have not sent');
});

test('Try again after a failure replaces the failure: the reply that comes is the only version, no ‹ 1/2 › to an error', async ({ page }) => {
  await openApp(page, server);
  await page.getByTestId('new-session').click();
  await page.getByTestId('create-session').click();
  agent.next({ status: 500, body: { error: { message: 'the model crashed' } } });
  await page.getByTestId('composer-input').fill('Name a tree');
  await page.getByTestId('send').click();
  const retry = page.getByTestId('error-row').last().getByTestId('error-action');
  await expect(retry).toHaveAttribute('data-action', 'retry', { timeout: 15_000 });
  agent.next(reply('Oak.'));
  await retry.click();
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Oak.', { timeout: 15_000 });
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
  // Was "1/2" with the error as version 1 (issue 38).
  await expect(page.getByTestId('versions')).toHaveCount(0);
  await expect(page.getByTestId('error-row')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect.poll(() => shownTexts(page)).toEqual(['Name a tree', 'Oak.']);
  await expect(page.getByTestId('versions')).toHaveCount(0);
});
