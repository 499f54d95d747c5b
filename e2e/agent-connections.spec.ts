/// <reference lib="dom" />
// Several saved agent connections (issue 24, "Per conversation"): a second connection is added in the settings
// drawer, a conversation picks it in its header and gets its reply from it (with its key and its models) while
// another conversation on the default gets its reply from the first; typed keys are never shown back; deleting
// the connection (asked again) leaves its conversation on the default, and the header says so.
// Its own server, so the agents it configures never reach the other specs.
import { test, expect, type Page } from '@playwright/test';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { createSession } from './fixtures.js';
import { completionRequests, configureAgent, openApp } from './helpers/chat.js';
import { ownServerAndTwoAgents } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';

const KEY_A = 'sk-e2e-connection-a-0123456789abcdef';
const KEY_B = 'sk-e2e-connection-b-fedcba9876543210';
let server: RunningServer;
let a: FakeAgent;
let b: FakeAgent;

ownServerAndTwoAgents({ a: KEY_A, b: KEY_B }, (got) => ({ server, a, b } = got));

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('composer-input').fill(text);
  await page.getByTestId('send').click();
}

async function newConversation(page: Page): Promise<string> {
  await page.getByTestId('new-session').click();
  return createSession(page, server.workspace);
}

/** Neither key anywhere in the page: its markup and every field's value. */
async function expectNoKey(page: Page): Promise<void> {
  const text = await page.evaluate(() => document.documentElement.outerHTML + Array.from(document.querySelectorAll('input, textarea')).map((e) => (e as HTMLInputElement).value).join('\n'));
  expect(text).not.toContain(KEY_A);
  expect(text).not.toContain(KEY_B);
}

test('a conversation on connection B gets its reply from B; another on the default gets it from A', async ({ page }) => {
  await openApp(page, server);
  await configureAgent(page, a, KEY_A);

  // Add B in the drawer.
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await expect(dialog.getByTestId('agent-connection-item')).toHaveCount(1);
  await dialog.getByTestId('agent-connection-add').click();
  await expect(dialog.getByTestId('agent-base-url')).toHaveValue('');
  await dialog.getByTestId('agent-connection-name').fill('Box B');
  await dialog.getByTestId('agent-base-url').fill(b.baseUrl);
  await dialog.getByTestId('agent-api-key').fill(KEY_B);
  await dialog.getByTestId('agent-test').click();
  await expect(dialog.getByTestId('agent-test-result')).toHaveText(`Connected to an OpenAI-compatible server at 127.0.0.1:${b.port}: 2 models, key accepted.`);
  await expect(dialog.getByTestId('agent-model')).toHaveValue('model-b');
  await dialog.getByTestId('agent-save').click();
  await expect(dialog).toBeHidden();

  // Reopened: both listed, A the default, B editable with its key only said to be saved.
  await page.getByTestId('agent-settings-button').click();
  const items = dialog.getByTestId('agent-connection-item');
  await expect(items).toHaveCount(2);
  await expect(items.nth(0)).toContainText(`127.0.0.1:${a.port}`);
  await expect(items.nth(0).getByTestId('agent-connection-default')).toHaveText('default');
  await expect(items.nth(1)).toContainText(`Box B — 127.0.0.1:${b.port}`);
  await items.nth(1).getByTestId('agent-connection-edit').click();
  await expect(dialog.getByTestId('agent-base-url')).toHaveValue(b.baseUrl);
  await expect(dialog.getByTestId('agent-connection-name')).toHaveValue('Box B');
  await expect(dialog.getByTestId('agent-api-key')).toHaveValue('');
  await expect(dialog.getByTestId('agent-key-saved')).toHaveText('saved');
  await expectNoKey(page);
  await page.screenshot({ path: test.info().outputPath('connections-drawer.png') });
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // Conversation 1 on B.
  await newConversation(page);
  const picker = page.getByTestId('session-connection');
  await expect(picker).toBeVisible();
  await expect(picker.locator('option')).toHaveText(['Default (127.0.0.1:' + a.port + ')', `127.0.0.1:${a.port}`, `Box B — 127.0.0.1:${b.port}`]);
  const bId = (await dialog.getByTestId('agent-connection-item').nth(1).getAttribute('data-id'))!;
  await picker.selectOption(bId);
  await expect(page.getByTestId('session-model').locator('option')).toHaveText(['Agent default (model-b)', 'model-b', 'model-b-large']);
  b.next(reply('Hello from B.'));
  await send(page, 'Who answers?');
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Hello from B.');
  const toB = completionRequests(b).at(-1)!;
  expect(toB.headers.authorization).toBe(`Bearer ${KEY_B}`);
  expect((toB.body as { model: string }).model).toBe('model-b');

  // Conversation 2 on the default: A.
  await newConversation(page);
  await expect(page.getByTestId('session-connection')).toHaveValue('');
  await expect(page.getByTestId('session-model').locator('option')).toHaveText(['Agent default (model-a)', 'model-a']);
  const beforeB = completionRequests(b).length;
  a.next(reply('Hello from A.'));
  await send(page, 'Who answers here?');
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Hello from A.');
  expect(completionRequests(a).at(-1)!.headers.authorization).toBe(`Bearer ${KEY_A}`);
  expect(completionRequests(b)).toHaveLength(beforeB);
  await page.screenshot({ path: test.info().outputPath('conversation-on-default.png') });
  await expectNoKey(page);
});

test('deleting a connection is asked again; its conversation then says the default answers, and it does', async ({ page }) => {
  await openApp(page, server);
  // The first conversation (on B) is the older one in the list.
  const first = page.getByTestId('session-item').last();
  await first.click();
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Hello from B.');
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  const b2 = dialog.getByTestId('agent-connection-item').nth(1);
  await b2.getByTestId('agent-connection-delete').click();
  await expect(b2.getByTestId('agent-connection-confirm')).toHaveText('Delete “Box B” and its saved key?');
  await b2.getByTestId('agent-connection-delete-confirm').click();
  await expect(dialog.getByTestId('agent-connection-item')).toHaveCount(1);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('session-connection').locator('option:checked')).toHaveText('Deleted connection — the default answers');
  a.next(reply('A again.'));
  await send(page, 'And now?');
  await expect(page.getByTestId('assistant-text').last()).toHaveText('A again.');
});
