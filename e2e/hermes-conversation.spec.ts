/// <reference lib="dom" />
// Issue 23, findings 1, 2 and 3 as a person meets them, in Chromium against the fake agent speaking Hermes'
// dialect and a plain OpenAI-compatible one: after Stop and Regenerate the gateway is sent the conversation on
// screen, not its own memory of it (no session header, the whole shown history); the title is made locally,
// never asked of the gateway; and a switch to another agent sends it the whole conversation.
import { test, expect, type Page } from '@playwright/test';
import { reply, startFakeAgent, type FakeAgent, type RecordedRequest } from '../server/testing/fake-agent.js';
import { completionRequests, configureAgent, openApp, type SentMessage } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';

const KEY = 'hermes-e2e-key-0123456789abcdef';
const HEADER = 'x-hermes-session-id';
/** Slow enough that the reply is visibly mid-way when Stop is pressed. */
const SLOW_TOKENS_PER_SECOND = 8;
const LONG_REPLY = Array.from({ length: 60 }, (_, i) => `step${i}`).join(' ');

let server: RunningServer;
let plain: FakeAgent;
let hermes: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  plain = a;
});
test.beforeAll(async () => {
  hermes = await startFakeAgent({ apiKey: KEY, hermes: true });
});
test.afterAll(async () => {
  await hermes?.close();
});

/** What a request carried as the conversation: [role, text] pairs. */
function conversationOf(request: RecordedRequest | undefined): [string, string][] {
  const messages = (request?.body as { messages?: SentMessage[] } | undefined)?.messages ?? [];
  return messages.map((m) => [m.role, typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('')]);
}

/** What the thread shows as the conversation, in order: the person's messages and the agent's replies. */
async function shown(page: Page): Promise<[string, string][]> {
  return page.locator('[data-testid="message"]').evaluateAll((els) =>
    els.flatMap((el) => {
      const text = el.querySelector('[data-testid="message-text"], [data-testid="assistant-text"]')?.textContent ?? '';
      return text ? [[el.getAttribute('data-role') === 'user' ? 'user' : 'assistant', text] as [string, string]] : [];
    }),
  );
}

async function settled(page: Page): Promise<void> {
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
}

test('with Hermes: Stop and Regenerate reach the gateway as the conversation on screen; the title is never asked of it', async ({ page }) => {
  await openApp(page, server);
  await configureAgent(page, hermes, KEY);
  hermes.next(reply('Added it to your todo list.'));
  await page.getByTestId('composer-input').fill('Add "buy figs" to my todo list');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Added it to your todo list.');
  await settled(page);
  // The first turn opens a gateway session of its own (the header), with the message alone.
  const first = completionRequests(hermes).at(-1)!;
  expect(first.headers[HEADER]).toMatch(/^satchel-[0-9a-f]{12}-[0-9a-f]{8}$/);
  expect(conversationOf(first)).toEqual([['user', 'Add "buy figs" to my todo list']]);
  // Titled from the message, here: nothing asked the gateway for one.
  await expect(page.getByTestId('session-title')).toHaveText('Add "buy figs" to my todo list');
  expect(hermes.titleRequests).toHaveLength(0);

  hermes.next(reply(LONG_REPLY, { tokensPerSecond: SLOW_TOKENS_PER_SECOND }));
  await page.getByTestId('composer-input').fill('Now plan the week around it');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('assistant-live').getByTestId('assistant-text')).toContainText('step2');
  // In step: the same gateway session, the new message alone.
  expect(completionRequests(hermes).at(-1)!.headers[HEADER]).toBe(first.headers[HEADER]);
  await page.getByTestId('stop').click();
  await expect(page.getByTestId('stop-marker')).toBeVisible();

  hermes.next(reply('Monday: market. Tuesday: jam.'));
  await page.getByTestId('regenerate').click();
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Monday: market. Tuesday: jam.');
  await settled(page);
  // Out of step (the gateway may remember the stopped turn): no header, and the conversation as shown before it.
  const regenerated = completionRequests(hermes).at(-1)!;
  expect(regenerated.headers[HEADER]).toBeUndefined();
  expect(conversationOf(regenerated)).toEqual([...(await shown(page)).slice(0, 2), ['user', 'Now plan the week around it']]);
  expect(JSON.stringify(regenerated.body)).not.toContain('step0');
});

test('switched to another agent, the conversation goes with it whole', async ({ page }) => {
  await openApp(page, server);
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Monday: market. Tuesday: jam.');
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await dialog.getByTestId('agent-base-url').fill(plain.baseUrl);
  await dialog.getByTestId('agent-api-key').fill(KEY);
  await dialog.getByTestId('agent-test').click();
  await expect(dialog.getByTestId('agent-test-result')).toHaveAttribute('data-state', 'ok');
  await dialog.getByTestId('agent-save').click();
  await expect(dialog).toBeHidden();
  plain.next(reply('Wednesday: bake.'));
  await page.getByTestId('composer-input').fill('And Wednesday?');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Wednesday: bake.');
  await settled(page);
  const sent = completionRequests(plain).at(-1)!;
  expect(sent.headers[HEADER]).toBeUndefined();
  const onScreen = await shown(page);
  expect(conversationOf(sent)).toEqual(onScreen.slice(0, -1));
  expect(onScreen.map(([, text]) => text)).toEqual([
    'Add "buy figs" to my todo list',
    'Added it to your todo list.',
    'Now plan the week around it',
    'Monday: market. Tuesday: jam.',
    'And Wednesday?',
    'Wednesday: bake.',
  ]);
});
