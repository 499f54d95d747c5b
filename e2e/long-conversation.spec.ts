/// <reference lib="dom" />
// A conversation of 10,000 messages (issue 24, "render only what is on screen"): it opens at its last message
// with only the rows near the screen in the DOM, scrolls to its first (older rows read in pages on the way), and a link to a message in its middle
// (#s=<id>&m=<index>, thread-view.ts reveal()) shows that message marked.
import { expect, test } from './fixtures.js';

const MESSAGES = 10_000;
/** Far more than the window draws at the test's 1360 × 860 viewport (about a dozen rows and the overscan), far
 * fewer than the conversation: drawing every row would put 10,000 here. */
const MAX_MESSAGE_ELEMENTS = 60;

/** Varied lengths, so rows differ in height: a question, then an answer of one to eight paragraphs. */
function conversation(): unknown[] {
  return Array.from({ length: MESSAGES }, (_, i) =>
    i % 2 === 0
      ? { role: 'user', content: `Question ${i}: what about item ${i}?`, timestamp: 1_700_000_000 + i * 30, attachments: [] }
      : { role: 'assistant', content: Array.from({ length: 1 + (i % 8) }, (_, p) => `Answer ${i}, paragraph ${p + 1}: the details of item ${i - 1}, explained at some length so that it wraps.`).join('\n\n'), timestamp: 1_700_000_000 + i * 30 + 10 },
  );
}

test('a 10,000-message conversation opens at its end with few rows drawn, scrolls to its start, and reveals a middle message', async ({ app: page, server }) => {
  test.setTimeout(180_000);
  const exported = { satchel_export: 1, title: 'Ten thousand messages', created_at: '2024-05-01T12:00:00Z', updated_at: '2024-05-01T12:00:00Z', messages: conversation(), attachments: [] };
  const id = await page.evaluate(async (json) => {
    const form = new FormData();
    form.append('file', new Blob([json], { type: 'application/json' }), 'long.json');
    const res = await fetch('/api/session/import', { method: 'POST', body: form });
    if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { session: { session_id: string } }).session.session_id;
  }, JSON.stringify(exported));

  await page.goto(`${server.base}/#s=${id}`);
  const thread = page.getByTestId('messages');
  const last = thread.locator(`[data-message-index="${MESSAGES - 1}"]`);
  await expect(last).toBeInViewport({ timeout: 60_000 });
  await expect(last.getByTestId('assistant-text')).toContainText(`Answer ${MESSAGES - 1}, paragraph 1`);
  const drawn = await thread.getByTestId('message').count();
  expect(drawn).toBeGreaterThan(2);
  expect(drawn).toBeLessThan(MAX_MESSAGE_ELEMENTS);

  // To the top (as Ctrl+Home or the scrollbar dragged up would), again as older rows come in above (the page
  // reads the conversation tail first, then older pages: session-pages.ts): the first question shows.
  const first = thread.locator('[data-message-index="0"]');
  await expect
    .poll(
      async () => {
        await thread.evaluate((el) => (el.scrollTop = 0));
        return await first.count();
      },
      { timeout: 120_000, intervals: [200] },
    )
    .toBe(1);
  await thread.evaluate((el) => (el.scrollTop = 0));
  await expect(first).toBeInViewport();
  await expect(first.getByTestId('message-text')).toHaveText('Question 0: what about item 0?');
  expect(await thread.getByTestId('message').count()).toBeLessThan(MAX_MESSAGE_ELEMENTS);

  // A link to message 5,001 (an answer in the middle): drawn, on screen, marked.
  await page.evaluate((hash) => (location.hash = hash), `#s=${id}&m=5001`);
  const middle = thread.locator('[data-message-index="5001"]');
  await expect(middle).toBeInViewport();
  await expect(middle).toHaveClass(/msg-found/);
  await expect(middle.getByTestId('assistant-text')).toContainText('Answer 5001, paragraph 1: the details of item 5000');
  expect(await thread.getByTestId('message').count()).toBeLessThan(MAX_MESSAGE_ELEMENTS);
});
