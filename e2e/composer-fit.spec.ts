/// <reference lib="dom" />
// Issue 38, items 2 and 3: a composer that never hides Send, and a long file name that never pushes the person's
// own message out of its column. At the window sizes (1280×800 and 800×600; quick capture at 560×420):
// with 9 and 30 attachments Send stays inside the window and the page itself never scrolls (the chips scroll
// inside the composer); a 192-character name keeps "You", Edit and the bubble's left edge in the column, is cut
// with "…" in its chips and shown whole on hover (the title). Its own server and fake agent.
import { test, expect, type BrowserContext, type Page } from '@playwright/test';
import path from 'node:path';
import { startFakeAgent, type FakeAgent } from '../server/testing/fake-agent.js';
import { configureAgent, openApp } from './helpers/chat.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { startServer, type RunningServer } from './helpers/server.js';

const KEY = 'sk-composer-fit-key';
const SIZES = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
] as const;
/** The quick-capture window's desktop size, as the issue measured it. */
const CAPTURE_SIZE = { width: 560, height: 420 };
/** The name: 192 characters, no space to break at. */
const LONG_NAME = `${'Quarterly-report-for-the-northern-region-'.repeat(5).slice(0, 188)}.pdf`;
const LONG_TITLE = 'Planning the autumn offsite for the whole northern region team, with travel, rooms and the agenda';

let server: RunningServer;
let agent: FakeAgent;
let context: BrowserContext;
let page: Page;
// Each test stands alone (a fresh conversation): one failing size does not hide the others.
test.describe.configure({ mode: 'default' });
/** Thirty uploads and their readers' summaries on a loaded two-core machine. */
const UPLOADS_DONE_MS = 60_000;
/** What a person types under the chips: a paragraph of lines, so the text box grows as it does in use. */
const MESSAGE = ['Compare these notes:', '- what changed since last week', '- what is still open', '- who owns each item', '- what is late', '- what we dropped', '- what the client asked', 'Answer as a table.'].join('\n');

test.beforeAll(async ({ browser }) => {
  agent = await startFakeAgent({ apiKey: KEY });
  server = await startServer();
  context = await browser.newContext({ viewport: SIZES[0] });
  page = await context.newPage();
  await openApp(page, server);
  await configureAgent(page, agent, KEY);
});
test.afterAll(async () => {
  await context?.close();
  await server?.stop();
  await agent?.close();
});

/** A new conversation, shown. */
async function freshConversation(title: string): Promise<string> {
  const id = await page.evaluate(async (t) => {
    const post = (p: string, body: unknown) => fetch(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
    const { session } = await post('/api/session/new', {});
    await post('/api/session/rename', { session_id: session.session_id, title: t });
    return session.session_id as string;
  }, title);
  await page.goto(`${server.base}/#s=${id}`);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator(`[data-testid="session-item"][data-session-id="${id}"]`)).toHaveAttribute('aria-current', 'page');
  return id;
}

function files(n: number): { name: string; mimeType: string; buffer: Buffer }[] {
  return Array.from({ length: n }, (_, i) => ({ name: `note-${String(i + 1).padStart(2, '0')}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`Note ${i + 1}\n`) }));
}

/** Send's box lies wholly inside the window, and the document itself cannot scroll. */
async function expectSendInWindow(p: Page, size: { width: number; height: number }): Promise<void> {
  const box = await p.getByTestId('send').boundingBox();
  expect(box, 'Send is drawn').not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(size.height);
  expect(box!.x + box!.width).toBeLessThanOrEqual(size.width);
  const doc = await p.evaluate(() => {
    const s = document.scrollingElement!;
    return { scrollHeight: s.scrollHeight, clientHeight: s.clientHeight, scrollWidth: s.scrollWidth, clientWidth: s.clientWidth };
  });
  expect(doc.scrollHeight, 'the page itself does not scroll').toBeLessThanOrEqual(doc.clientHeight);
  expect(doc.scrollWidth, 'the page itself does not scroll sideways').toBeLessThanOrEqual(doc.clientWidth);
}

for (const size of SIZES) {
  for (const n of [9, 30]) {
    test(`${n} attachments at ${size.width}×${size.height}: Send stays in the window, the chips scroll inside the composer`, async ({}, info) => {
      await page.setViewportSize(size);
      await freshConversation(`Chips ${n} at ${size.width}`);
      await page.getByTestId('file-input').setInputFiles(files(n));
      await expect(page.getByTestId('attachment-chip')).toHaveCount(n);
      await page.getByTestId('composer-input').fill(MESSAGE);
      await expect(page.getByTestId('send')).toBeEnabled({ timeout: UPLOADS_DONE_MS });
      await page.screenshot({ path: path.join(screenshotDir(info), `chips-${n}-${size.width}x${size.height}.png`) });
      await expectSendInWindow(page, size);
      // Every chip can still be reached: the last one scrolls into view inside the composer, Send stays put.
      const last = page.getByTestId('attachment-chip').last();
      await last.scrollIntoViewIfNeeded();
      await expect(last).toBeInViewport();
      await expectSendInWindow(page, size);
    });
  }
}

for (const size of SIZES) {
  test(`a 192-character file name at ${size.width}×${size.height}: cut with "…", whole on hover, the own message stays in its column`, async ({}, info) => {
    await page.setViewportSize(size);
    await freshConversation(`Long name at ${size.width}`);
    await page.getByTestId('file-input').setInputFiles([{ name: LONG_NAME, mimeType: 'text/plain', buffer: Buffer.from('Revenue rose.\n') }]);
    const chip = page.getByTestId('attachment-chip');
    await expect(chip).toHaveCount(1);
    await expect(page.getByTestId('send')).toBeEnabled();
    const chipName = chip.locator('.chip-name');
    await expect(chipName).toHaveAttribute('title', LONG_NAME);
    await expectCut(chipName);
    await page.getByTestId('composer-input').fill('Summarise this report, please.');
    await page.getByTestId('send').click();
    const own = page.locator('[data-testid="message"][data-role="user"]').last();
    await expect(own.getByTestId('message-text')).toHaveText('Summarise this report, please.');
    await expect(own.getByTestId('edit-message')).toBeVisible();
    await page.screenshot({ path: path.join(screenshotDir(info), `long-name-${size.width}x${size.height}.png`) });

    const column = await page.getByTestId('messages').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.left + el.clientWidth, scrollWidth: el.scrollWidth, clientWidth: el.clientWidth };
    });
    expect(column.scrollWidth, 'the thread does not scroll sideways').toBeLessThanOrEqual(column.clientWidth);
    const inColumn = async (what: string, box: { x: number; width: number } | null) => {
      expect(box, `${what} is drawn`).not.toBeNull();
      expect(box!.x, `${what}'s left edge is in the column`).toBeGreaterThanOrEqual(column.left);
      expect(box!.x + box!.width, `${what}'s right edge is in the column`).toBeLessThanOrEqual(column.right + 0.5);
    };
    await inColumn('the own message', await own.boundingBox());
    await inColumn('"You"', await own.locator('.msg-role').boundingBox());
    await inColumn('Edit', await own.getByTestId('edit-message').boundingBox());
    await inColumn('the message text', await own.getByTestId('message-text').boundingBox());
    await expect(own.getByTestId('edit-message')).toBeInViewport();

    // The sent message's chip: cut too, whole on hover.
    const sentName = own.getByTestId('message-attachment').locator('.chip-name');
    await expect(sentName).toHaveAttribute('title', LONG_NAME);
    await expectCut(sentName);
    await inColumn('the sent chip', await own.getByTestId('message-attachment').boundingBox());
  });
}

/** Shown on one line and cut with an ellipsis: the text is wider than its box. */
async function expectCut(name: ReturnType<Page['locator']>): Promise<void> {
  const shown = await name.evaluate((el) => ({ overflow: getComputedStyle(el).textOverflow, scrollWidth: el.scrollWidth, clientWidth: el.clientWidth, text: el.textContent }));
  expect(shown.text).toBe(LONG_NAME);
  expect(shown.overflow).toBe('ellipsis');
  expect(shown.scrollWidth).toBeGreaterThan(shown.clientWidth);
}

test(`quick capture at ${CAPTURE_SIZE.width}×${CAPTURE_SIZE.height} fits its window with a chip and a long conversation title`, async ({}, info) => {
  await page.setViewportSize(SIZES[0]);
  const id = await freshConversation(LONG_TITLE);
  const [capture] = await Promise.all([
    context.waitForEvent('page'),
    page.evaluate(([url, w, h]) => void window.open(url, '_blank', `popup,width=${w},height=${h}`), [`/capture?session=${id}`, CAPTURE_SIZE.width, CAPTURE_SIZE.height] as const),
  ]);
  await capture.setViewportSize(CAPTURE_SIZE);
  await expect(capture.getByTestId('capture')).toHaveAttribute('data-ready', 'true');
  await expect(capture.locator('#destination-current-label')).toHaveText(`Current conversation: ${LONG_TITLE}`);
  await capture.getByTestId('capture-input').fill('Book the rooms before Friday.');
  await capture.getByTestId('file-input').setInputFiles([{ name: LONG_NAME, mimeType: 'text/plain', buffer: Buffer.from('Revenue rose.\n') }]);
  await expect(capture.getByTestId('attachment-chip')).toHaveCount(1);
  await expect(capture.getByTestId('send')).toBeEnabled();
  await capture.screenshot({ path: path.join(screenshotDir(info), `capture-${CAPTURE_SIZE.width}x${CAPTURE_SIZE.height}.png`) });
  await expect(capture.getByTestId('attachment-chip').locator('.chip-name')).toHaveAttribute('title', LONG_NAME);
  // The long title is cut to the window with "…", whole on hover.
  const label = capture.locator('#destination-current-label');
  await expect(label).toHaveAttribute('title', `Current conversation: ${LONG_TITLE}`);
  const cut = await label.evaluate((el) => ({ right: el.getBoundingClientRect().right, scrollWidth: el.scrollWidth, clientWidth: el.clientWidth, overflow: getComputedStyle(el).textOverflow }));
  expect(cut.overflow).toBe('ellipsis');
  expect(cut.scrollWidth).toBeGreaterThan(cut.clientWidth);
  expect(cut.right).toBeLessThanOrEqual(CAPTURE_SIZE.width);
  await expectSendInWindow(capture, CAPTURE_SIZE);
  // With many chips too: they scroll inside the form.
  await capture.getByTestId('file-input').setInputFiles(files(9));
  await expect(capture.getByTestId('attachment-chip')).toHaveCount(10);
  await expect(capture.getByTestId('send')).toBeEnabled({ timeout: UPLOADS_DONE_MS });
  await capture.screenshot({ path: path.join(screenshotDir(info), `capture-10-chips-${CAPTURE_SIZE.width}x${CAPTURE_SIZE.height}.png`) });
  await expectSendInWindow(capture, CAPTURE_SIZE);
  await capture.close();
});
