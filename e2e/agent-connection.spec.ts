/// <reference lib="dom" />
// The connection in the settings dialog (issue 23, findings 1 and 8): Test says in one sentence what it proved
// and shows the detected kind; saving a new address with the key field empty asks whether the saved key may go
// there, naming the address, and the second agent never receives the first one's key unless that is confirmed.
// Its own server, so the agents it configures never reach the other specs.
import fs from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { startFakeAgent, type FakeAgent } from '../server/testing/fake-agent.js';
import { openApp as openAt } from './helpers/chat.js';
import { startServer, type RunningServer } from './helpers/server.js';

const KEY = 'sk-connection-e2e-key-0123456789abcdef';
let server: RunningServer;
let hermes: FakeAgent;
let plain: FakeAgent;
let third: FakeAgent;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  hermes = await startFakeAgent({ apiKey: KEY, hermes: true, models: ['hermes-agent'] });
  plain = await startFakeAgent({ models: ['fake-model'] });
  third = await startFakeAgent({ models: ['fake-model'] });
  server = await startServer();
});

test.afterAll(async () => {
  await server?.stop();
  await Promise.all([hermes?.close(), plain?.close(), third?.close()]);
});

async function openSettings(page: Page) {
  await openAt(page, server);
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await expect(dialog).toBeVisible();
  return dialog;
}

const savedSettings = () => JSON.parse(fs.readFileSync(`${server.stateDir}/agent.json`, 'utf8')) as Record<string, unknown>;

test('Test names the kind it detected, in one sentence; a wrong key is said to be wrong', async ({ page }) => {
  const dialog = await openSettings(page);
  await dialog.getByTestId('agent-base-url').fill(hermes.baseUrl);
  await expect(dialog.getByTestId('agent-kind')).toHaveText('Kind: detected on Test or Save');
  await dialog.getByTestId('agent-api-key').fill('sk-wrong-0123456789abcdef');
  await dialog.getByTestId('agent-test').click();
  await expect(dialog.getByTestId('agent-test-result')).toHaveText(`The agent at 127.0.0.1:${hermes.port} refused the API key (401). Check the key, or paste it again.`);
  await dialog.getByTestId('agent-api-key').fill(KEY);
  await dialog.getByTestId('agent-test').click();
  await expect(dialog.getByTestId('agent-test-result')).toHaveText(`Connected to Hermes Agent’s gateway at 127.0.0.1:${hermes.port}: 1 model, key accepted.`);
  await expect(dialog.getByTestId('agent-kind')).toHaveText('Detected: Hermes Agent’s gateway');
  await expect(dialog.getByTestId('agent-model')).toHaveValue('hermes-agent');
  await dialog.getByTestId('agent-save').click();
  await expect(dialog).toBeHidden();
  expect(savedSettings()).toMatchObject({ baseUrl: hermes.baseUrl, kind: 'hermes', apiKey: KEY });
});

test('a new address with the key field empty asks first; "Remove the key" sends it nowhere', async ({ page }) => {
  const dialog = await openSettings(page);
  await expect(dialog.getByTestId('agent-kind')).toHaveText('Detected: Hermes Agent’s gateway');
  await dialog.getByTestId('agent-base-url').fill(plain.baseUrl);
  await expect(dialog.getByTestId('agent-key-saved')).toHaveText('saved for another address');
  await dialog.getByTestId('agent-model').fill('fake-model');
  await dialog.getByTestId('agent-save').click();
  await expect(dialog.getByTestId('agent-key-confirm-text')).toHaveText(`Keep the saved key and send it to ${plain.baseUrl}?`);
  await page.screenshot({ path: test.info().outputPath('keep-key-question.png') });
  await expect(dialog, 'nothing saved until answered').toBeVisible();
  expect(savedSettings()).toMatchObject({ baseUrl: hermes.baseUrl });
  await dialog.getByTestId('agent-key-drop').click();
  await expect(dialog).toBeHidden();
  const saved = savedSettings();
  expect(saved).toMatchObject({ baseUrl: plain.baseUrl, kind: 'openai' });
  expect(saved).not.toHaveProperty('apiKey');
  const reopened = await openSettings(page);
  await expect(reopened.getByTestId('agent-kind')).toHaveText('Detected: OpenAI-compatible server');
  await expect(reopened.getByTestId('agent-key-saved')).toBeHidden();
  await reopened.getByTestId('agent-test').click();
  await expect(reopened.getByTestId('agent-test-result')).toHaveText(`Connected to an OpenAI-compatible server at 127.0.0.1:${plain.port}: 1 model, no key needed.`);
  expect(plain.requests.length).toBeGreaterThan(0);
  for (const r of plain.requests) expect(r.headers.authorization, `${r.method} ${r.path}`).toBeUndefined();
});

test('"Keep and send it" sends the saved key to the new address', async ({ page }) => {
  const dialog = await openSettings(page);
  await dialog.getByTestId('agent-api-key').fill(KEY);
  await dialog.getByTestId('agent-save').click();
  await expect(dialog).toBeHidden();
  const again = await openSettings(page);
  await again.getByTestId('agent-base-url').fill(third.baseUrl);
  await again.getByTestId('agent-save').click();
  await expect(again.getByTestId('agent-key-confirm-text')).toHaveText(`Keep the saved key and send it to ${third.baseUrl}?`);
  await again.getByTestId('agent-key-keep').click();
  await expect(again).toBeHidden();
  const last = await openSettings(page);
  await expect(last.getByTestId('agent-key-saved')).toHaveText('saved');
  await last.getByTestId('agent-test').click();
  await expect(last.getByTestId('agent-test-result')).toContainText(`at 127.0.0.1:${third.port}`);
  expect(third.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
});
