/// <reference lib="dom" />
// Issue 24, "Search everything", as a person uses it in Chromium against the real server: Ctrl+K, type, see the
// ranked results with the words marked, pick with the arrows, Enter lands in the conversation with that message
// in view and marked; a word only in an attached file's text finds it under the file's name; nothing found says
// so; a deleted conversation is never found; a failed request says so and keeps the title filter. Its own server:
// the conversations it makes reach no other spec.
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { test, expect, type Page } from '@playwright/test';
import { openApp } from './helpers/chat.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { startServer, type RunningServer } from './helpers/server.js';
import { SEARCH_LIMIT } from '../renderer/src/search-model.js';

let server: RunningServer;

test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  await server?.stop();
});

/** Messages before the one searched for: enough that it is far above the end the conversation opens at. */
const FILLER_BEFORE = 6;
const FILLER_AFTER = 40;

interface Upload {
  filename: string;
  path: string;
  size: number;
  mime: string;
  is_image: boolean;
}

/** A conversation titled `title` holding `texts` as the person's messages (and `attachments` on the last), made
 *  through the API from the page (it holds the access cookie); returns its id. */
async function conversation(page: Page, title: string, texts: string[], file?: { name: string; text: string }): Promise<string> {
  return page.evaluate(
    async ({ title, texts, file }) => {
      const post = async (url: string, body: unknown) => {
        const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
        return res.json();
      };
      const { session } = await post('/api/session/new', {});
      const id = session.session_id as string;
      await post('/api/session/rename', { session_id: id, title });
      let attachments: Upload[] = [];
      if (file) {
        const form = new FormData();
        form.append('session_id', id);
        form.append('file', new File([file.text], file.name, { type: 'text/plain' }));
        const res = await fetch('/api/upload', { method: 'POST', body: form });
        if (!res.ok) throw new Error(`upload: ${res.status} ${await res.text()}`);
        attachments = [(await res.json()) as Upload];
      }
      for (const [i, text] of texts.entries()) await post('/api/session/message', { session_id: id, text, attachments: i === texts.length - 1 ? attachments : [] });
      return id;
    },
    { title, texts, file },
  );
}

const filler = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `Filler line ${from + i} about nothing in particular, the weather and the tea.`);
const shownId = (page: Page) => new URL(page.url()).hash.replace('#s=', '');
const results = (page: Page) => page.getByTestId('search-result');
const message = (page: Page, index: number) => page.locator(`#messages [data-message-index="${index}"]`);

/** The one result shown: its title, where it matched and its marked words; returns it. */
async function onlyResult(page: Page, title: string, where: string, marked: string[]) {
  await expect(results(page)).toHaveCount(1);
  const hit = results(page).first();
  await expect(hit.getByTestId('search-result-title')).toHaveText(title);
  await expect(hit.getByTestId('search-result-where')).toHaveText(where);
  await expect(hit.locator('mark')).toHaveText(marked);
  return hit;
}

async function reopen(page: Page): Promise<void> {
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
}

test('Ctrl+K and a word: ranked results with the word marked; arrows pick, Enter opens the conversation at that message, marked; Esc returns to the list', async ({ page }, info) => {
  await openApp(page, server);
  const heronText = 'At dawn the grey heron stood in the reeds without moving at all.';
  const birds = await conversation(page, 'Birdwatching notes', [...filler(FILLER_BEFORE), heronText, ...filler(FILLER_AFTER, FILLER_BEFORE)]);
  const pond = await conversation(page, 'Heron pond plans', ['Dig the pond deeper before spring.']);
  await conversation(page, 'Trip to Lisbon', ['Pastries, trams and the river.']);
  await reopen(page);
  expect(shownId(page)).not.toBe(birds);

  await page.getByTestId('composer-input').click();
  await page.keyboard.press('Control+K');
  const field = page.getByTestId('session-search');
  await expect(field).toBeFocused();
  await page.keyboard.type('heron');

  // The title match ranks above the message match; each says where it matched and when.
  const listbox = page.getByRole('listbox', { name: 'Search results' });
  await expect(listbox).toBeVisible();
  await expect(page.getByTestId('session-list')).toBeHidden();
  await expect(field).toHaveAttribute('aria-expanded', 'true');
  await expect(results(page).getByTestId('search-result-title')).toHaveText(['Heron pond plans', 'Birdwatching notes']);
  await expect(results(page).getByTestId('search-result-where')).toHaveText(['title', 'your message']);
  const found = results(page).nth(1);
  await expect(found).toHaveAttribute('data-session-id', birds);
  await expect(found.locator('mark')).toHaveText(['heron']);
  await expect(found.getByTestId('search-result-snippet')).toContainText('the grey heron stood in the reeds');
  await expect(results(page).nth(0)).toHaveAttribute('data-session-id', pond);

  // The first is picked; ↓ picks the next (the field keeps focus, naming it as its active descendant).
  await expect(results(page).nth(0)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(found).toHaveAttribute('aria-selected', 'true');
  await expect(results(page).nth(0)).toHaveAttribute('aria-selected', 'false');
  await expect(field).toHaveAttribute('aria-activedescendant', (await found.getAttribute('id'))!);
  await expect(field).toBeFocused();

  // With the results shown the page has no serious or critical accessibility violation, light or dark.
  const violations: Record<string, string[]> = {};
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const scan = await new AxeBuilder({ page }).analyze();
    violations[scheme] = scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }
  expect(violations).toEqual({ dark: [], light: [] });
  await page.screenshot({ path: path.join(screenshotDir(info), 'search.png') });

  await page.keyboard.press('Enter');
  await expect.poll(() => shownId(page)).toBe(birds);
  const heron = message(page, FILLER_BEFORE);
  await expect(heron).toContainText(heronText);
  await expect(heron).toBeInViewport();
  await expect(heron).toHaveClass(/\bmsg-found\b/);
  // The conversation's end (where an opening lands) is out of view: the thread was scrolled to the match.
  await expect(message(page, FILLER_BEFORE + FILLER_AFTER)).not.toBeInViewport();
  // The mark is brief.
  await expect(heron).not.toHaveClass(/\bmsg-found\b/, { timeout: 5_000 });

  await field.focus();
  await page.keyboard.press('Escape');
  await expect(field).toHaveValue('');
  await expect(listbox).toBeHidden();
  await expect(field).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByTestId('session-item')).toHaveCount(3);
});

test('a file’s name finds the conversation it is attached to; a click opens it', async ({ page }) => {
  await openApp(page, server);
  const id = await conversation(page, 'Quarterly numbers', ['Here is the file with the figures.'], { name: 'inventory.txt', text: 'Shelf four holds eleven models and a kite.' });
  await reopen(page);
  await page.keyboard.press('Control+K');
  await page.keyboard.type('inventory');
  await (await onlyResult(page, 'Quarterly numbers', 'file inventory.txt', ['inventory'])).click();
  await expect.poll(() => shownId(page)).toBe(id);
  await expect(page.getByTestId('session-title')).toHaveText('Quarterly numbers');
});

test('a word only in an attached file’s text finds the conversation under the file’s name; Enter opens it', async ({ page }) => {
  await openApp(page, server);
  const id = await conversation(page, 'Airships', ['The list is attached.'], { name: 'hangar.txt', text: 'Hangar two keeps the old zeppelin and three balloons.' });
  await reopen(page);
  await page.keyboard.press('Control+K');
  await page.keyboard.type('zeppelin');
  const hit = await onlyResult(page, 'Airships', 'in hangar.txt', ['zeppelin']);
  await expect(hit.getByTestId('search-result-snippet')).toContainText('keeps the old zeppelin and three balloons');
  await page.keyboard.press('Enter');
  await expect.poll(() => shownId(page)).toBe(id);
});

test('nothing found says so; a deleted conversation is not found', async ({ page }) => {
  await openApp(page, server);
  const id = await conversation(page, 'Breakfast', ['Orange marmalade on toast, every morning.']);
  await reopen(page);
  const field = page.getByTestId('session-search');
  await page.keyboard.press('Control+K');
  await page.keyboard.type('xylophonequartz');
  await expect(page.getByTestId('search-empty')).toHaveText('No conversation holds “xylophonequartz”');
  await expect(page.getByTestId('search-results')).toBeHidden();
  await expect(page.getByTestId('session-list')).toBeHidden();

  await field.fill('marmalade');
  await expect(results(page)).toHaveCount(1);
  await expect(results(page).first()).toHaveAttribute('data-session-id', id);
  // Deleted (as another window would) while its result is shown: the results follow the list at once.
  const deleted = await page.evaluate(async (sid) => (await fetch('/api/session/delete', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ session_id: sid }) })).status, id);
  expect(deleted).toBe(200);
  await expect(page.getByTestId('search-empty')).toHaveText('No conversation holds “marmalade”');
  await expect(results(page)).toHaveCount(0);
  // And searched afresh, it is not found either.
  await page.keyboard.press('Escape');
  await field.fill('marmalade');
  await expect(page.getByTestId('search-empty')).toHaveText('No conversation holds “marmalade”');
  await expect(results(page)).toHaveCount(0);
});

test('when more match than are shown, the list says so', async ({ page }) => {
  await openApp(page, server);
  // One more than the page asks for (search-model.ts SEARCH_LIMIT).
  for (let i = 0; i <= SEARCH_LIMIT; i++) await conversation(page, `Gadget ${i}`, []);
  await reopen(page);
  await page.keyboard.press('Control+K');
  await page.keyboard.type('gadget');
  await expect(results(page)).toHaveCount(SEARCH_LIMIT);
  await expect(page.getByTestId('search-more')).toHaveText(`More conversations match than the ${SEARCH_LIMIT} shown: add a word to narrow the search.`);
  await page.keyboard.type(' 7');
  await expect(results(page)).toHaveCount(1);
  await expect(page.getByTestId('search-more')).toBeHidden();
});

test('a failed request says so, and the titles still filter; a query typed past is cancelled, and its answer never replaces the newer one', async ({ page }) => {
  await openApp(page, server);
  await conversation(page, 'Porto weekend', ['Tiles, port wine and the bridge.']);
  await reopen(page);
  const field = page.getByTestId('session-search');
  await page.route('**/api/search?*', (route) => route.abort());
  await field.click();
  await field.fill('porto');
  await expect(page.getByTestId('search-error')).toHaveText('Search failed: Satchel’s server is not reachable. Is it still running?');
  await expect(page.getByTestId('session-item-title')).toHaveText(['Porto weekend']);
  await page.unroute('**/api/search?*');

  // "heron" is held back until "porto" (typed after it) has been answered and shown.
  let releaseHeron!: () => void;
  const heronHeld = new Promise<void>((resolve) => (releaseHeron = resolve));
  await page.route('**/api/search?*', async (route) => {
    if (new URL(route.request().url()).searchParams.get('q') === 'heron') {
      await heronHeld;
      // The page gave it up meanwhile: nothing is left to answer.
      await route.continue().catch(() => {});
      return;
    }
    await route.continue();
  });
  const asked = (q: string) => page.waitForRequest((r) => r.url().includes('/api/search?') && new URL(r.url()).searchParams.get('q') === q);
  const heronAsked = asked('heron');
  await field.fill('heron');
  const heron = await heronAsked;
  const heronGivenUp = page.waitForEvent('requestfailed', (r) => r === heron);
  await field.fill('porto');
  // The page cancels the question typed past at once (the server stops its search), before it asks the new one.
  expect((await heronGivenUp).failure()?.errorText).toBe('net::ERR_ABORTED');
  await expect(results(page).getByTestId('search-result-title')).toHaveText(['Porto weekend']);
  releaseHeron();
  // Whatever becomes of the old request, what the page shows is still the newer answer's.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await expect(results(page).getByTestId('search-result-title')).toHaveText(['Porto weekend']);
  await expect(page.getByTestId('search-error')).toBeHidden();
});
