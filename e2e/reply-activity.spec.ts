/// <reference lib="dom" />
// What the agent did stays with its reply (issue 23, finding 6), in Chromium against the fake agent: after the
// turn ends, and after a reload, the reply keeps its tool cards (name, preview, status, duration) folded under a
// "2 tools · …" summary, its reasoning and its usage; an agent that reports no usage shows none (never
// "0 in · 0 out"); a stopped reply keeps the tools it had, the one still running marked stopped.
import { expect, type Locator, type Page } from '@playwright/test';
import { test } from '@playwright/test';
import { chunk, contentChunk, reasoningChunk, usageChunk, type FakeAgent, type Frame } from '../server/testing/fake-agent.js';
import { openApp as openAt } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';

const KEY = 'sk-test-activity-key';
/** A turn against the local fake agent ends in well under a second; this leaves room for a busy machine. */
const TURN_DEADLINE_MS = 15_000;

let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});
// Saved as the settings dialog saves it, once: each test runs alone too (`-g`), none depends on another's steps.
test.beforeAll(async () => {
  const res = await fetch(`${server.base}/api/agent/settings`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ base_url: agent.baseUrl, api_key: KEY, model: 'fake-model' }),
  });
  expect(res.status, await res.text()).toBe(200);
});

function progress(tool: string, status: 'running' | 'completed' | 'failed', id: string, label: string): Frame {
  return { event: 'hermes.tool.progress', data: { tool, emoji: '🔧', label, toolCallId: id, status } };
}

async function newConversation(page: Page, text: string): Promise<void> {
  await page.getByTestId('new-session').click();
  await page.getByTestId('create-session').click();
  await page.getByTestId('composer-input').fill(text);
  await page.getByTestId('send').click();
}

const lastReply = (page: Page): Locator => page.locator('[data-testid="message"][data-role="assistant"]').last();

/** The folded activity of a stored reply: closed at first; opened, it shows one card per tool. */
async function expectTools(reply: Locator, summary: RegExp, cards: [name: string, preview: string, state: RegExp][]): Promise<void> {
  const activity = reply.getByTestId('reply-activity');
  await expect(activity).toBeVisible();
  await expect(activity).not.toHaveAttribute('open', '');
  await expect(activity.getByTestId('tool-card').first()).toBeHidden();
  await expect(activity.getByTestId('activity-summary')).toHaveText(summary);
  await activity.getByTestId('activity-summary').click();
  const shown = activity.getByTestId('tool-card');
  await expect(shown).toHaveCount(cards.length);
  for (const [i, [name, preview, state]] of cards.entries()) {
    const card = shown.nth(i);
    await expect(card.locator('.tool-name')).toHaveText(name);
    await expect(card.locator('.tool-preview')).toHaveText(preview);
    await expect(card.getByTestId('tool-state')).toHaveText(state);
  }
}

test('the tool cards, reasoning and usage stay with the reply after the turn and after a reload', async ({ page }) => {
  await openAt(page, server);
  agent.next({
    frames: [
      chunk({ role: 'assistant', content: '' }),
      reasoningChunk('Look at the todo file first.'),
      progress('read_file', 'running', 'call_1', 'notes/todo.md'),
      progress('read_file', 'completed', 'call_1', 'notes/todo.md'),
      progress('terminal', 'running', 'call_2', 'grep -c TODO notes/todo.md'),
      progress('terminal', 'failed', 'call_2', 'grep -c TODO notes/todo.md'),
      contentChunk('You have two todos.'),
      usageChunk(1234, 56),
    ],
  });
  await newConversation(page, 'What is in my todo file?');
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: TURN_DEADLINE_MS });
  const cards: [string, string, RegExp][] = [
    ['read_file', 'notes/todo.md', /^finished in \d+\.\d s$/],
    ['terminal', 'grep -c TODO notes/todo.md', /^failed in \d+\.\d s$/],
  ];
  for (const when of ['after the turn', 'after a reload']) {
    if (when === 'after a reload') {
      await page.reload();
      await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    }
    const reply = lastReply(page);
    await expect(reply.getByTestId('assistant-text'), when).toHaveText('You have two todos.');
    await expectTools(reply, /^2 tools · \d+\.\d s · 1 failed$/, cards);
    await expect(reply.getByTestId('reasoning')).toContainText('Look at the todo file first.');
    await expect(reply.getByTestId('usage')).toHaveText(/^1234 in · 56 out · \d+\.\d s · first token \d+ ms/);
  }
});

test('an agent that reports no usage shows none, live or stored, never "0 in · 0 out"', async ({ page }) => {
  await openAt(page, server);
  agent.next({ frames: [chunk({ role: 'assistant', content: '' }), contentChunk('No counts from me.')] });
  await newConversation(page, 'Hello');
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: TURN_DEADLINE_MS });
  await expect(lastReply(page).getByTestId('assistant-text')).toHaveText('No counts from me.');
  await expect(page.getByTestId('usage')).toHaveCount(0);
  await expect(page.getByTestId('reply-activity')).toHaveCount(0);
  await page.reload();
  await expect(lastReply(page).getByTestId('assistant-text')).toHaveText('No counts from me.');
  await expect(page.getByTestId('usage')).toHaveCount(0);
  expect(await page.locator('#messages').textContent()).not.toContain('0 in');
});

test('a stopped reply keeps the tools it had: the finished one finished, the running one stopped', async ({ page }) => {
  await openAt(page, server);
  agent.next({
    frames: [progress('search_files', 'running', 'call_1', 'TODO'), progress('search_files', 'completed', 'call_1', 'TODO'), progress('terminal', 'running', 'call_2', 'sleep 60')],
    end: 'stall',
  });
  await newConversation(page, 'Find my todos');
  const live = page.getByTestId('assistant-live');
  await expect(live.locator('[data-testid="tool-card"][data-tool="terminal"]')).toHaveAttribute('data-status', 'running');
  await page.getByTestId('stop').click();
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: TURN_DEADLINE_MS });
  const cards: [string, string, RegExp][] = [
    ['search_files', 'TODO', /^finished in \d+\.\d s$/],
    ['terminal', 'sleep 60', /^stopped$/],
  ];
  const partial = page.locator('[data-testid="message"][data-role="assistant"].msg-partial');
  await expectTools(partial, /^2 tools · \d+\.\d s$/, cards);
  await page.reload();
  await expectTools(partial, /^2 tools · \d+\.\d s$/, cards);
});
