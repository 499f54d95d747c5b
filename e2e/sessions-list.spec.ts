/// <reference lib="dom" />
// Issue 38, item 1 (the list without folders) and item 7: titles read in full, the row's buttons only on hover or
// keyboard focus, a resizable list that remembers its width, one Tab stop with arrow keys inside (Enter, Delete, P,
// A), multi-select with a bar (delete, archive, export); and calm deletes: the notice never over the composer, Undo
// keeps you where you were, the keyboard's place goes to the next row. At 1280×800 and 800×600 (the list a drawer).
import yauzl from 'yauzl';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures.js';

const SIZES = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
] as const;
/** styles.css / drawers.ts: below this the list is a drawer. */
const NARROW_MAX_WIDTH_PX = 899;

let profiles = 0;

/**
 * A profile of the test's own holding conversations titled `titles`, oldest first (so the list shows them
 * newest first: the last title on top); returns their ids in the order given. The page shows that profile.
 */
async function seed(page: Page, titles: readonly string[]): Promise<string[]> {
  const profile = `list-${process.pid}-${Date.now().toString(36)}-${++profiles}`;
  const base = new URL(page.url()).origin;
  const post = (p: string, data: unknown) => page.request.post(`${base}${p}`, { data });
  expect((await post('/api/profile/switch', { name: profile })).ok()).toBe(true);
  const ids: string[] = [];
  for (const title of titles) {
    const made = (await (await post('/api/session/new', {})).json()) as { session: { session_id: string } };
    const id = made.session.session_id;
    await post('/api/session/rename', { session_id: id, title });
    // A message gives each its own last activity, a few ms apart: the list's order is the order made.
    await post('/api/session/message', { session_id: id, text: `about ${title}` });
    ids.push(id);
  }
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('[data-testid="session-row"]')).toHaveCount(titles.length);
  return ids;
}

/** In a small window the list is a drawer: open it. */
async function showList(page: Page): Promise<void> {
  const size = page.viewportSize();
  if (size && size.width <= NARROW_MAX_WIDTH_PX && !(await page.locator('#sidebar.drawer-open').count())) await page.getByTestId('sessions-toggle').click();
  await expect(page.getByTestId('session-list')).toBeVisible();
}

const row = (page: Page, id: string) => page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
const option = (page: Page, id: string) => row(page, id).getByTestId('session-item');
const focusedId = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.sessionId ?? document.activeElement?.getAttribute('data-testid') ?? null);
const shownId = (page: Page) => new URL(page.url()).hash.replace('#s=', '');

function overlaps(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function box(l: Locator) {
  const b = await l.boundingBox();
  if (!b) throw new Error('not laid out');
  return b;
}

for (const size of SIZES) {
  const at = `${size.width}×${size.height}`;
  test.describe(`the conversation list at ${at}`, () => {
    test.beforeEach(async ({ app: page }) => {
      await page.setViewportSize(size);
    });

    test(`titles read in full (two lines, the rest on hover); the buttons take no width until hover (${at})`, async ({ app: page }) => {
      const long = `Quarterly planning notes ${'with a very long tail of words '.repeat(4)}end`;
      const titles = ['Plan a weekend trip to the mountains', 'Plan a weekend with the kids', 'Car insurance renewal quotes', 'Car insurance claim after the storm', long];
      const ids = await seed(page, titles);
      await showList(page);
      for (const [i, id] of ids.entries()) {
        const name = option(page, id).getByTestId('session-item-title');
        await expect(name).toHaveAttribute('title', titles[i]!);
        const fit = await name.evaluate((el) => ({ cut: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1, lines: Math.round(el.clientHeight / parseFloat(getComputedStyle(el).lineHeight || '20')) }));
        // The short titles whole; the long one cut at two lines, whole in its tooltip.
        expect(fit.cut, titles[i]).toBe(id === ids[4]);
        if (id === ids[4]) expect(fit.lines).toBe(2);
        // No button reserves room: the title spans the row (its padding aside) while the pointer is elsewhere.
        const [title, item] = [await box(name), await box(option(page, id))];
        if (id !== ids[4]) expect(item.x + item.width - (title.x + title.width), titles[i]).toBeGreaterThanOrEqual(0);
        await expect(row(page, id).getByTestId('session-delete')).toBeHidden();
      }
      const longBox = await box(option(page, ids[4]!).getByTestId('session-item-title'));
      const itemBox = await box(option(page, ids[4]!));
      expect(itemBox.x + itemBox.width - (longBox.x + longBox.width)).toBeLessThanOrEqual(24);
      // Hover shows them, over the row's right end.
      await option(page, ids[1]!).hover();
      await expect(row(page, ids[1]!).getByTestId('session-delete')).toBeVisible();
      await expect(row(page, ids[1]!).getByTestId('session-pin')).toBeVisible();
      await expect(row(page, ids[0]!).getByTestId('session-delete')).toBeHidden();
    });

    test(`one Tab stop for the list; arrows, Home, End, Enter, P, A and Delete on the focused row (${at})`, async ({ app: page }) => {
      const [a, b, c, d] = await seed(page, ['Alpha', 'Bravo', 'Charlie', 'Delta']);
      await showList(page);
      // The newest is open; Tab from the search field reaches the list once, on the row on screen.
      await expect(option(page, d!)).toHaveAttribute('aria-current', 'page');
      await page.getByTestId('session-search').focus();
      await page.keyboard.press('Tab');
      expect(await focusedId(page)).toBe(d);
      await expect(page.getByTestId('session-list')).toHaveAttribute('role', 'listbox');
      await expect(option(page, d!)).toHaveAttribute('role', 'option');
      // The next Tab leaves the list: no row's button is a Tab stop.
      await page.keyboard.press('Tab');
      expect(await focusedId(page)).toBe('import-session');
      await page.keyboard.press('Shift+Tab');
      expect(await focusedId(page)).toBe(d);

      await page.keyboard.press('ArrowDown');
      expect(await focusedId(page)).toBe(c);
      await page.keyboard.press('End');
      expect(await focusedId(page)).toBe(a);
      await page.keyboard.press('Home');
      expect(await focusedId(page)).toBe(d);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      // Moving opens nothing; Enter does.
      expect(shownId(page)).toBe(d);
      await page.keyboard.press('Enter');
      await expect(page).toHaveURL(new RegExp(`#s=${b}$`));
      await expect(page.getByTestId('session-title')).toHaveText('Bravo');
      await showList(page);
      await option(page, b!).focus();

      // P pins the focused row: it moves to Pinned, the keyboard stays on it.
      await page.keyboard.press('p');
      await expect(page.locator('[data-testid="session-group"][data-group="pinned"]').locator(`[data-session-id="${b}"][data-testid="session-item"]`)).toHaveCount(1);
      await expect(row(page, b!).getByTestId('session-pin')).toHaveAttribute('aria-pressed', 'true');
      expect(await focusedId(page)).toBe(b);
      // A archives the focused row: it leaves the list behind "Show archived (1)"; the keyboard goes to a row.
      await page.keyboard.press('ArrowDown');
      expect(await focusedId(page)).toBe(d);
      await page.keyboard.press('a');
      await expect(row(page, d!)).toHaveCount(0);
      await expect(page.getByTestId('show-archived')).toHaveText('Show archived (1)');
      expect(await focusedId(page)).not.toBeNull();
      // Delete deletes the focused row; the keyboard lands on the next row, never on a button.
      await option(page, c!).focus();
      await page.keyboard.press('Delete');
      await expect(row(page, c!)).toHaveCount(0);
      await expect(page.getByTestId('toast').filter({ hasText: 'Deleted “Charlie”' })).toBeVisible();
      expect(await focusedId(page)).toBe(a);
      await expect(page.locator(':focus')).toHaveAttribute('role', 'option');
    });

    test(`several selected with Shift/Ctrl-click and Shift+arrows: the bar archives, exports and deletes them (${at})`, async ({ app: page }) => {
      const ids = await seed(page, ['One', 'Two', 'Three', 'Four', 'Five', 'Six']);
      const [one, two, three, four, five, six] = ids as [string, string, string, string, string, string];
      await showList(page);
      const bar = page.getByTestId('selection-bar');
      await expect(bar).toBeHidden();
      // Shown newest first: Six, Five, Four, Three, Two, One.
      await option(page, six).click();
      await showList(page);
      await option(page, four).click({ modifiers: ['Shift'] });
      await expect(bar).toBeVisible();
      await expect(page.getByTestId('selection-count')).toHaveText('3 selected');
      await option(page, two).click({ modifiers: ['Control'] });
      await expect(page.getByTestId('selection-count')).toHaveText('4 selected');
      await option(page, five).click({ modifiers: ['Control'] });
      await expect(page.getByTestId('selection-count')).toHaveText('3 selected');
      for (const id of [six, four, two]) await expect(option(page, id)).toHaveAttribute('aria-selected', 'true');
      for (const id of [five, three, one]) await expect(option(page, id)).toHaveAttribute('aria-selected', 'false');
      // Selecting opened nothing else.
      expect(shownId(page)).toBe(six);

      // Export: one archive of exactly these.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('selection-export').click()]);
      const names = await zipNames(await download.path());
      const exported = names.filter((n) => n.endsWith('/conversation.json')).map((n) => n.slice(-30, -18));
      expect(exported.sort()).toEqual([six, four, two].sort());

      // Archive: all three behind the toggle.
      await page.getByTestId('selection-archive').click();
      for (const id of [six, four, two]) await expect(row(page, id)).toHaveCount(0);
      await expect(page.getByTestId('show-archived')).toHaveText('Show archived (3)');
      await expect(bar).toBeHidden();

      // By keyboard: Shift+arrows from the focused row, then the bar's Delete; one notice, one Undo for all.
      await showList(page);
      await option(page, five).focus();
      await page.keyboard.press('Shift+ArrowDown');
      await page.keyboard.press('Shift+ArrowDown');
      await expect(page.getByTestId('selection-count')).toHaveText('3 selected');
      for (const id of [five, three, one]) await expect(option(page, id)).toHaveAttribute('aria-selected', 'true');
      await page.keyboard.press('Shift+Tab');
      await expect(page.getByTestId('selection-clear')).toBeFocused();
      // Another window renames a conversation: the list and its bar are drawn again, and the keyboard stays on Clear
      // (it went to Delete, where the next Enter would delete all three).
      const base = new URL(page.url()).origin;
      expect((await page.request.post(`${base}/api/session/rename`, { data: { session_id: three, title: 'Three, renamed' } })).ok()).toBe(true);
      await expect(option(page, three)).toContainText('Three, renamed');
      await expect(page.getByTestId('selection-clear')).toBeFocused();
      await page.getByTestId('selection-delete').focus();
      await page.keyboard.press('Enter');
      for (const id of [five, three, one]) await expect(row(page, id)).toHaveCount(0);
      const toast = page.getByTestId('toast').filter({ hasText: 'Deleted 3 conversations' });
      await expect(toast).toBeVisible();
      await toast.getByTestId('undo-delete').click();
      await showList(page);
      for (const id of [five, three, one]) await expect(row(page, id)).toHaveCount(1);
    });

    test(`a delete: the notice stays off the composer, focus goes to the next row, Undo keeps you where you were (${at})`, async ({ app: page }) => {
      const [a, b, c] = await seed(page, ['Apples', 'Bananas', 'Cherries']);
      await showList(page);
      // On Cherries (the newest, on top); delete Bananas with the pointer.
      await expect(page).toHaveURL(new RegExp(`#s=${c}$`));
      await option(page, b!).hover();
      const del = row(page, b!).getByTestId('session-delete');
      await del.click();
      await expect(row(page, b!)).toHaveCount(0);
      const toast = page.getByTestId('toast').filter({ hasText: 'Deleted “Bananas”' });
      await expect(toast).toBeVisible();
      // The keyboard's place is the row that took its place, and that row's Delete did not slide under the pointer.
      expect(await focusedId(page)).toBe(a);
      await expect(row(page, a!).getByTestId('session-delete')).toBeHidden();
      // The notice never covers the composer (nor Send).
      const composer = await box(page.getByTestId('composer'));
      expect(overlaps(await box(toast), composer)).toBe(false);
      expect(overlaps(await box(toast), await box(page.getByTestId('send')))).toBe(false);
      // Undo: Bananas back in the list, and the screen still on Cherries.
      await toast.getByTestId('undo-delete').click();
      await showList(page);
      await expect(row(page, b!)).toHaveCount(1);
      await page.waitForTimeout(500);
      expect(shownId(page)).toBe(c);
      await expect(page.getByTestId('session-title')).toHaveText('Cherries');

      // Deleting the one on screen shows the next; Undo then puts it back on screen (nothing else was opened).
      await option(page, c!).focus();
      await page.keyboard.press('Delete');
      await expect(page).toHaveURL(new RegExp(`#s=${b}$`));
      const again = page.getByTestId('toast').filter({ hasText: 'Deleted “Cherries”' });
      expect(overlaps(await box(again), await box(page.getByTestId('composer')))).toBe(false);
      await again.getByTestId('undo-delete').click();
      await expect(page).toHaveURL(new RegExp(`#s=${c}$`));
    });
  });
}

test('the list is resizable by pointer and keyboard, and keeps its width across a reload; wider by default in a wide window', async ({ app: page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const sidebar = page.locator('#sidebar');
  const handle = page.getByTestId('sidebar-resize');
  const width = async () => Math.round((await box(sidebar)).width);
  const start = await width();
  const h = await box(handle);
  await page.mouse.move(h.x + h.width / 2, h.y + 200);
  await page.mouse.down();
  await page.mouse.move(h.x + h.width / 2 + 60, h.y + 200, { steps: 4 });
  await page.mouse.move(h.x + h.width / 2 + 120, h.y + 200, { steps: 4 });
  await page.mouse.up();
  expect(Math.abs((await width()) - (start + 120))).toBeLessThanOrEqual(2);
  await handle.focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  const chosen = await width();
  expect(Math.abs(chosen - (start + 120 - 32))).toBeLessThanOrEqual(2);
  await expect(handle).toHaveAttribute('aria-valuenow', String(chosen));
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  expect(await width()).toBe(chosen);
  // Home: the narrowest; Enter: back to the default.
  await handle.focus();
  await page.keyboard.press('Home');
  expect(await width()).toBe(200);
  await page.keyboard.press('Enter');
  expect(await width()).toBe(start);

  // The small window's drawer takes the chosen width too (within the window).
  await page.keyboard.press('End');
  await page.setViewportSize({ width: 800, height: 600 });
  await page.getByTestId('sessions-toggle').click();
  expect(await width()).toBe(Math.floor(800 * 0.45));
  // With no width chosen, a wide window gets a wider list than 1280 px does.
  await page.evaluate(() => localStorage.removeItem('satchel.sidebarWidth'));
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  expect(await width()).toBeGreaterThan(start + 100);
});

/** The member names of a zip file. */
function zipNames(file: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const names: string[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        names.push(e.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve(names));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}
