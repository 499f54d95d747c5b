/// <reference lib="dom" />
// A long conversation read tail first (issue 37, finding 1; renderer/src/session-pages.ts): the page asks only
// for pages of rows (GET /api/session with `limit`), shows the newest message, reads older rows as the person
// scrolls up with the row they read staying where it is, and a search hit 150 turns deep, or near the very
// start, opens at that message marked.
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { SESSION_PAGE_ROWS } from '../renderer/src/session-pages.js';

const MESSAGES = 3_000;
/** 150 turns (a question and its answer each) above the end: outside the first page the page reads. */
const HIT_150_TURNS = MESSAGES - 300;
/** Near the start: several pages above the first. */
const HIT_DEEP = 40;
/** Words found nowhere else in the test server's conversations. */
const WORD_150 = 'marbledtealpage';
const WORD_DEEP = 'pintailsongpage';
/** Far below the 8 MB of a whole read of 10,000 messages; a page of 1,000 of these rows is about 0.3 MB. */
const MAX_ANSWER_BYTES = 1_000_000;

function conversation(): unknown[] {
  return Array.from({ length: MESSAGES }, (_, i) => {
    const at = 1_700_000_000 + i * 30;
    if (i % 2 === 1) {
      return { role: 'assistant', content: Array.from({ length: 1 + (i % 5) }, (_, p) => `Answer ${i}, paragraph ${p + 1}: about item ${i - 1}, at some length so that it wraps on the screen.`).join('\n\n'), timestamp: at };
    }
    const word = i === HIT_150_TURNS ? ` ${WORD_150}` : i === HIT_DEEP ? ` ${WORD_DEEP}` : '';
    return { role: 'user', content: `Question ${i}: what about item ${i}?${word}`, timestamp: at, attachments: [] };
  });
}

async function importConversation(page: Page): Promise<string> {
  const exported = { satchel_export: 1, title: 'Three thousand messages', created_at: '2024-05-01T12:00:00Z', updated_at: '2024-05-01T12:00:00Z', messages: conversation(), attachments: [] };
  return page.evaluate(async (json) => {
    const form = new FormData();
    form.append('file', new Blob([json], { type: 'application/json' }), 'long.json');
    const res = await fetch('/api/session/import', { method: 'POST', body: form });
    if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { session: { session_id: string } }).session.session_id;
  }, JSON.stringify(exported));
}

/** Every GET /api/session the page makes from now on: its query and the size of its answer. */
function watchReads(page: Page): Array<{ query: URLSearchParams; bytes: Promise<number> }> {
  const reads: Array<{ query: URLSearchParams; bytes: Promise<number> }> = [];
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (url.pathname !== '/api/session' || res.request().method() !== 'GET') return;
    reads.push({ query: url.searchParams, bytes: res.body().then((b) => b.length, () => 0) });
  });
  return reads;
}

async function searchAndOpen(page: Page, word: string): Promise<void> {
  await page.getByTestId('composer-input').click();
  await page.keyboard.press('Control+K');
  await page.keyboard.type(word);
  const hit = page.getByTestId('search-result');
  await expect(hit).toHaveCount(1);
  await expect(hit.locator('mark')).toHaveText([word]);
  await page.keyboard.press('Enter');
}

/** The drawn row nearest the thread's top edge: its index and where its top is on screen. */
const topRow = (page: Page) =>
  page.getByTestId('messages').evaluate((thread) => {
    const top = thread.getBoundingClientRect().top;
    const rows = Array.from(thread.querySelectorAll<HTMLElement>('[data-message-index]'));
    const row = rows.find((r) => r.getBoundingClientRect().bottom > top) ?? rows[0]!;
    return { index: Number(row.dataset.messageIndex), y: row.getBoundingClientRect().top };
  });
const lowestDrawn = (page: Page) => page.getByTestId('messages').evaluate((thread) => Math.min(...Array.from(thread.querySelectorAll<HTMLElement>('[data-message-index]')).map((r) => Number(r.dataset.messageIndex))));

test('a long conversation opens at its newest message reading pages only, loads older rows as the person scrolls up, and opens search hits deep in it', async ({ app: page, server }) => {
  test.setTimeout(180_000);
  const id = await importConversation(page);
  const reads = watchReads(page);
  await page.goto(`${server.base}/#s=${id}`);
  const thread = page.getByTestId('messages');
  const message = (i: number) => thread.locator(`[data-message-index="${i}"]`);

  const last = message(MESSAGES - 1);
  await expect(last).toBeInViewport({ timeout: 60_000 });
  await expect(last.getByTestId('assistant-text')).toContainText(`Answer ${MESSAGES - 1}, paragraph 1`);
  // Opened from one page: its tail.
  expect(reads.length).toBeGreaterThan(0);
  for (const read of reads) expect([read.query.get('limit'), read.query.get('before')]).toEqual([String(SESSION_PAGE_ROWS), null]);

  // Search: the hit 150 turns deep opens in view, marked, with the end out of view.
  await searchAndOpen(page, WORD_150);
  const hit = message(HIT_150_TURNS);
  await expect(hit).toBeInViewport();
  await expect(hit).toHaveClass(/\bmsg-found\b/);
  await expect(hit.getByTestId('message-text')).toHaveText(`Question ${HIT_150_TURNS}: what about item ${HIT_150_TURNS}? ${WORD_150}`);
  await expect(last).not.toBeInViewport();

  // Open it again at its end, then scroll up: older rows come in above, and the row read stays where it was.
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(last).toBeInViewport({ timeout: 60_000 });
  // The first row of the tail the page read.
  const firstHeld = MESSAGES - SESSION_PAGE_ROWS;
  // Near the top of the rows held, not yet near enough to read more (two screens: thread-view.ts).
  await thread.evaluate((el) => (el.scrollTop = el.clientHeight * 2 + 600));
  await page.waitForTimeout(300);
  let lowest = await lowestDrawn(page);
  for (let step = 0; step < 12 && lowest > firstHeld - 100; step++) {
    await thread.evaluate((el) => el.scrollBy(0, -400));
    const before = await topRow(page);
    // Older rows read (or none needed yet): the row at the top has not moved on screen.
    await page.waitForTimeout(300);
    await expect.poll(async () => (await topRow(page)).index).toBe(before.index);
    expect(Math.abs((await topRow(page)).y - before.y)).toBeLessThan(2);
    lowest = Math.min(lowest, await lowestDrawn(page));
  }
  // Rows older than the tail came in while the person scrolled.
  expect(lowest).toBeLessThan(firstHeld);
  await thread.evaluate((el) => (el.scrollTop = 0));
  await expect.poll(() => lowestDrawn(page)).toBeLessThan(lowest - 200);

  // Search: a hit near the very start (several pages above) opens in view, marked.
  await searchAndOpen(page, WORD_DEEP);
  const deep = message(HIT_DEEP);
  await expect(deep).toBeInViewport();
  await expect(deep).toHaveClass(/\bmsg-found\b/);
  await expect(deep.getByTestId('message-text')).toHaveText(`Question ${HIT_DEEP}: what about item ${HIT_DEEP}? ${WORD_DEEP}`);

  // Every read of the conversation was a page, none near the size of the whole.
  expect(reads.length).toBeGreaterThan(2);
  for (const read of reads) {
    expect(read.query.get('limit'), `GET /api/session?${read.query}`).not.toBeNull();
    expect(await read.bytes).toBeLessThan(MAX_ANSWER_BYTES);
  }
});
