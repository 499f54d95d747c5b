/// <reference lib="dom" />
// Issue 23, findings 5 and 7, as a person sees them: a wrong key is one sentence of what happened and one of what
// to do, with a button that opens the Chat agent tab; Stop marks the partial reply "Stopped" and leaves a quiet
// line, never an error, and the agent never hears of it. Both hold after a reload.
import { test, expect, type Page } from '@playwright/test';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { completionRequests, configureAgent, openApp as openAt } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';

const KEY = 'sk-errors-key';
/** Slow enough that the reply is visibly mid-way when Stop is pressed. */
const SLOW_TOKENS_PER_SECOND = 8;
const LONG_REPLY = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('composer-input').fill(text);
  await page.getByTestId('send').click();
}

async function newSession(page: Page): Promise<void> {
  await page.getByTestId('new-session').click();
  await page.getByTestId('create-session').click();
}

/** The failure shows exactly its two sentences and its one button; nothing else says it again. */
async function expectWrongKey(page: Page): Promise<void> {
  const row = page.getByTestId('error-row').last();
  await expect(row.getByTestId('error-text')).toHaveText('The agent refused the API key (401).');
  await expect(row.getByTestId('error-hint')).toHaveText('Enter the right API key in Agent settings → Chat agent.');
  await expect(row.getByTestId('turn-error')).toHaveText('The agent refused the API key (401).Enter the right API key in Agent settings → Chat agent.Open Chat agent settings');
  await expect(page.getByTestId('error-advice')).toHaveCount(0);
  await row.getByTestId('error-action').click();
  const dialog = page.getByTestId('agent-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('agent-tab-chat')).toHaveAttribute('aria-selected', 'true');
  await expect(dialog.getByTestId('agent-base-url')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
}

test('a wrong key: one sentence pair, and its button opens the Chat agent tab, also after a reload', async ({ page }) => {
  await openAt(page, server);
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await dialog.getByTestId('agent-base-url').fill(agent.baseUrl);
  await dialog.getByTestId('agent-api-key').fill('sk-wrong');
  await dialog.getByTestId('agent-model').fill('fake-model');
  // The MCP tab first: the button must bring the Chat agent tab back, not open the dialog where it was left.
  await dialog.getByTestId('agent-tab-mcp').click();
  await dialog.getByTestId('agent-tab-chat').click();
  await dialog.getByTestId('agent-save').click();
  await expect(dialog).toBeHidden();
  await newSession(page);
  await send(page, 'hello?');
  await expectWrongKey(page);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expectWrongKey(page);
});

test('Stop: the partial reply says Stopped, a quiet line follows, no error; the agent never hears of the stop', async ({ page }) => {
  await openAt(page, server);
  await configureAgent(page, agent, KEY);
  await newSession(page);
  agent.next(reply(LONG_REPLY, { tokensPerSecond: SLOW_TOKENS_PER_SECOND }));
  await send(page, 'Tell me a long story');
  await expect(page.getByTestId('assistant-live').getByTestId('assistant-text')).toContainText('word2');
  await page.getByTestId('stop').click();
  await expect(page.getByTestId('send')).toBeVisible();

  const expectStopped = async () => {
    const partial = page.getByTestId('message').filter({ has: page.getByTestId('stopped-badge') });
    await expect(partial).toHaveCount(1);
    await expect(partial.getByTestId('stopped-badge')).toHaveText('Stopped');
    await expect(partial.getByTestId('assistant-text')).toContainText('word2');
    const marker = page.getByTestId('stop-marker');
    await expect(marker).toHaveCount(1);
    await expect(marker).toHaveText(/^Stopped by you · \S+/);
    await expect(marker).toHaveAttribute('role', 'note');
    // Not a message, not an error: no bubble, no alert, not in the danger colour of an error.
    expect(await marker.evaluate((el) => el.tagName)).toBe('DIV');
    await expect(page.getByTestId('error-row')).toHaveCount(0);
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(page.getByText('Task cancelled')).toHaveCount(0);
    // The person's row, the partial reply: the stop is no third message.
    await expect(page.getByTestId('message')).toHaveCount(2);
  };
  await expectStopped();
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expectStopped();

  const before = completionRequests(agent).length;
  await send(page, 'Go on');
  await expect.poll(() => completionRequests(agent).length).toBe(before + 1);
  const sent = JSON.stringify(completionRequests(agent).at(-1)!.body);
  expect(sent).toContain('word2');
  expect(sent).not.toMatch(/cancel|Stopped/i);
});
