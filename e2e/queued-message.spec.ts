/// <reference lib="dom" />
// Issue 34 as a person sees it: a note stored while the agent's reply streams (here by POST /api/session/message,
// as quick capture's "current conversation" does) is shown after the reply being written, marked "After this
// reply", and is stored there: after the reply, also after a reload.
import { test, expect, type Page } from '@playwright/test';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { configureAgent, openApp } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';

const KEY = 'sk-queued-key';
/** Slow enough that the note is stored while the reply is visibly mid-way. */
const SLOW_TOKENS_PER_SECOND = 10;
const LONG_REPLY = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});

/** The texts of the thread's messages in the order the page shows them (stored, live, waiting). */
async function order(page: Page): Promise<string[]> {
  return page.locator('#messages [data-testid="message"], #messages [data-testid="assistant-live"]').evaluateAll((els) => els.map((el) => (el.textContent ?? '').includes('a note while it streams') ? 'note' : (el.textContent ?? '').includes('Tell me') ? 'm1' : (el.textContent ?? '').includes('word0') ? 'reply' : 'other'));
}

test('a note written while the reply streams is shown after it, and stored there', async ({ page }) => {
  await openApp(page, server);
  await configureAgent(page, agent, KEY);
  await page.getByTestId('new-session').click();
  await page.getByTestId('create-session').click();
  agent.next(reply(LONG_REPLY, { tokensPerSecond: SLOW_TOKENS_PER_SECOND }));
  await page.getByTestId('composer-input').fill('Tell me a long story');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('assistant-live').getByTestId('assistant-text')).toContainText('word2');

  const sessions = (await (await fetch(`${server.base}/api/sessions`, { headers: { Authorization: `Bearer ${server.token}` } })).json()) as { sessions: { session_id: string }[] };
  const res = await fetch(`${server.base}/api/session/message`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ session_id: sessions.sessions[0]!.session_id, text: 'a note while it streams' }),
  });
  expect(res.status).toBe(200);

  // While the reply is still being written: the note after it, marked.
  const waiting = page.getByTestId('queued-rows');
  await expect(waiting.getByTestId('message')).toContainText('a note while it streams');
  await expect(waiting.getByTestId('queued-badge')).toHaveText('After this reply');
  await expect(page.getByTestId('streaming')).toBeVisible();
  expect(await order(page)).toEqual(['m1', 'reply', 'note']);

  // Finished: stored in that place, no longer waiting; the same after a reload.
  await expect(page.getByTestId('streaming')).toHaveCount(0, { timeout: 15_000 });
  await expect(waiting).toBeHidden();
  expect(await order(page)).toEqual(['m1', 'reply', 'note']);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#messages [data-testid="message"]')).toHaveCount(3);
  expect(await order(page)).toEqual(['m1', 'reply', 'note']);
});
