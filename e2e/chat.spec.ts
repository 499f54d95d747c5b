/// <reference lib="dom" />
// A conversation with an agent, through the UI, against the scripted fake OpenAI-compatible agent: connect it
// in the settings dialog, see a reply arrive in pieces with a tool card, stop a reply, reload mid-reply, and
// a wrong key explained. Its own server, so the agent it configures never reaches the other specs.
import { test as base, expect, type Page } from '@playwright/test';
import { contentChunk, reply, tokens, toolProgress, usageChunk, type FakeAgent } from '../server/testing/fake-agent.js';
import { completionRequests, configureAgent, openApp as openAt } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';
import { startTcpProxy } from './helpers/tcp-proxy.js';

const KEY = 'sk-test-key';
/** Slow enough that a reply is visibly mid-way for a few seconds; fast enough to keep the spec short. */
const SLOW_TOKENS_PER_SECOND = 8;
const LONG_REPLY = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

const test = base.extend<{ app: Page }>({});
let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});

function openApp(page: Page): Promise<void> {
  return openAt(page, server);
}

function configure(page: Page, key: string): Promise<void> {
  return configureAgent(page, agent, key);
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('composer-input').fill(text);
  await page.getByTestId('send').click();
}

test('without an agent the composer says so and links to the settings', async ({ page }) => {
  await openApp(page);
  await expect(page.getByTestId('agent-notice')).toBeVisible();
  await page.getByTestId('agent-notice-link').click();
  await expect(page.getByTestId('agent-dialog')).toBeVisible();
});

test('a wrong key: the test says what failed, and a turn explains the auth failure', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await dialog.getByTestId('agent-base-url').fill(agent.baseUrl);
  await dialog.getByTestId('agent-api-key').fill('wrong');
  await dialog.getByTestId('agent-test').click();
  await expect(dialog.getByTestId('agent-test-result')).toHaveAttribute('data-state', 'error');
  await expect(dialog.getByTestId('agent-test-result')).toHaveAttribute('data-type', 'auth_error');
  await dialog.getByTestId('agent-model').fill('fake-model');
  await dialog.getByTestId('agent-save').click();
  await expect(page.getByTestId('agent-notice')).toBeHidden();
  await send(page, 'hello?');
  await expect(page.getByTestId('error-row')).toBeVisible();
  await expect(page.getByTestId('error-hint')).toHaveText('Enter the right API key in Agent settings → Chat agent.');
});

test('configured: the key is saved (never shown), the test lists the models', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await expect(dialog.getByTestId('agent-key-saved')).toBeVisible();
  await expect(dialog.getByTestId('agent-api-key')).toHaveValue('');
  await dialog.getByTestId('agent-api-key').fill(KEY);
  await dialog.getByTestId('agent-test').click();
  await expect(dialog.getByTestId('agent-test-result')).toHaveAttribute('data-state', 'ok');
  await expect(dialog.getByTestId('agent-test-result')).toContainText('1 model, key accepted');
  await expect(dialog.getByTestId('agent-model')).toHaveValue('fake-model');
  await dialog.getByTestId('agent-save').click();
  await expect(dialog).toBeHidden();
  const html = await page.content();
  expect(html).not.toContain(KEY);
});

test('a reply streams in pieces with a tool card, then is stored with its usage', async ({ page }) => {
  await openApp(page);
  await configure(page, KEY);
  const words = tokens(LONG_REPLY);
  agent.next({
    frames: [toolProgress('search', 'running', 'call-1', 'search: cats'), ...words.slice(0, 20).map(contentChunk), toolProgress('search', 'completed', 'call-1'), ...words.slice(20).map(contentChunk), usageChunk(12, words.length)],
    tokensPerSecond: 40,
  });
  await page.getByTestId('new-session').click();
  await page.getByTestId('create-session').click();
  await send(page, 'Find cats');
  const live = page.getByTestId('assistant-live');
  await expect(live.getByTestId('tool-card')).toHaveAttribute('data-status', 'running');
  // Some of the reply is shown before all of it is.
  await expect(live.getByTestId('assistant-text')).toContainText('word3');
  expect(await live.getByTestId('assistant-text').textContent()).not.toContain('word59');
  await expect(live.getByTestId('tool-card')).toHaveAttribute('data-status', 'done');
  await expect(live.getByTestId('tool-state')).toContainText(/finished in \d+\.\d s/);
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId('assistant-text').last()).toContainText('word59');
  await expect(page.getByTestId('usage')).toContainText(`12 in · ${words.length} out`);
  await expect(page.getByTestId('regenerate')).toBeVisible();
});

test('Stop keeps the partial reply, marked stopped', async ({ page }) => {
  await openApp(page);
  agent.next(reply(LONG_REPLY, { tokensPerSecond: SLOW_TOKENS_PER_SECOND }));
  await send(page, 'Tell me a long story');
  const live = page.getByTestId('assistant-live');
  await expect(live.getByTestId('assistant-text')).toContainText('word2');
  await page.getByTestId('stop').click();
  await expect(page.getByTestId('stopped-badge').last()).toBeVisible();
  await expect(page.getByTestId('stop-marker').last()).toContainText('Stopped by you');
  await expect(page.getByTestId('send')).toBeVisible();
  const stored = await page.getByTestId('message').filter({ has: page.getByTestId('stopped-badge') }).last().textContent();
  expect(stored).toContain('word2');
  expect(stored).not.toContain('word59');
});

test('a reload mid-reply picks the turn up again and finishes it', async ({ page }) => {
  await openApp(page);
  agent.next(reply(LONG_REPLY, { tokensPerSecond: SLOW_TOKENS_PER_SECOND }));
  await send(page, 'Another long one');
  await expect(page.getByTestId('assistant-live').getByTestId('assistant-text')).toContainText('word3');
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  const live = page.getByTestId('assistant-live');
  // Replayed from the start, then live to the end.
  await expect(live.getByTestId('assistant-text')).toContainText('word0');
  await expect(page.getByTestId('stop')).toBeVisible();
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByTestId('assistant-text').last()).toContainText('word0 word1 word2');
  await expect(page.getByTestId('assistant-text').last()).toContainText('word59');
});

test('Edit puts the last message back in the composer, and sending it replaces that exchange', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('edit-message').last().click();
  await expect(page.getByTestId('composer-input')).toHaveValue('Another long one');
  // The thread's earlier turns (Find cats) had a whole long reply too; the edited exchange's is one more.
  const longReplies = page.getByTestId('assistant-text').filter({ hasText: 'word59' });
  const before = await longReplies.count();
  agent.next(reply('An edited answer'));
  await send(page, 'Another short one');
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId('assistant-text').last()).toContainText('An edited answer');
  // The edited message took the old one's place, and the old reply went with it.
  await expect(page.locator('[data-role="user"]').filter({ hasText: 'Another short one' })).toHaveCount(1);
  await expect(page.locator('[data-role="user"]').filter({ hasText: 'Another long one' })).toHaveCount(0);
  await expect(longReplies).toHaveCount(before - 1);
  const sent = JSON.stringify(completionRequests(agent).at(-1)?.body);
  expect(sent).toContain('Another short one');
  expect(sent).not.toContain('Another long one');
});

test('Regenerate replaces the last reply with a new one', async ({ page }) => {
  await openApp(page);
  await expect(page.getByTestId('assistant-text').last()).toContainText('An edited answer');
  agent.next(reply('A fresh answer'));
  await page.getByTestId('regenerate').click();
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId('assistant-text').last()).toContainText('A fresh answer');
  await expect(page.locator('[data-role="user"]').filter({ hasText: 'Another short one' })).toHaveCount(1);
  await expect(page.getByTestId('assistant-text').filter({ hasText: 'An edited answer' })).toHaveCount(0);
  const sent = JSON.stringify(completionRequests(agent).at(-1)?.body);
  expect(sent).toContain('Another short one');
  expect(sent).not.toContain('An edited answer');
  // What the reload shows is what was stored: the same one exchange.
  await page.reload();
  await expect(page.getByTestId('assistant-text').last()).toContainText('A fresh answer');
  await expect(page.locator('[data-role="user"]').filter({ hasText: 'Another short one' })).toHaveCount(1);
  await expect(page.getByTestId('assistant-text').filter({ hasText: 'An edited answer' })).toHaveCount(0);
});

test('a dropped reply stream resumes after the last frame it received, not from the first', async ({ page }) => {
  // Through a relay whose connections the test can cut, as a network drop would.
  const relay = await startTcpProxy(server.base);
  try {
    await openAt(page, { base: relay.base, token: server.token });
    const streams: { url: URL; lastEventId: string | undefined }[] = [];
    page.on('request', (r) => {
      if (!r.url().includes('/api/chat/stream?')) return;
      void r.allHeaders().then((headers) => streams.push({ url: new URL(r.url()), lastEventId: headers['last-event-id'] }));
    });
    agent.next(reply(LONG_REPLY, { tokensPerSecond: SLOW_TOKENS_PER_SECOND }));
    await send(page, 'Resume me');
    const live = page.getByTestId('assistant-live');
    await expect(live.getByTestId('assistant-text')).toContainText('word3');
    relay.cut();
    // The browser reconnects by itself, naming the last frame it received.
    await expect.poll(() => streams.length, { timeout: 15_000 }).toBeGreaterThan(1);
    const resumed = streams.at(-1)!;
    // Nothing in the address pins the resume point to the start, so Last-Event-ID decides it.
    expect(resumed.url.searchParams.has('after_seq')).toBe(false);
    expect(Number(resumed.lastEventId?.split(':').pop())).toBeGreaterThan(3);
    await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 20_000 });
    const stored = await page.getByTestId('assistant-text').last().textContent();
    expect(stored).toContain('word0 word1 word2');
    expect(stored?.match(/word59/g)).toHaveLength(1);
  } finally {
    await relay.close();
  }
});
