/// <reference lib="dom" />
// Issue 38, "Done means": keyboard only — open, move, multi-select, delete, undo, search, send — without the
// mouse, in one walk, at 1280×800 and at 800×600 (where the list is a drawer). Every step is a key a person presses;
// nothing is clicked, hovered or focused by the test.
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';

const SIZES = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
] as const;
/** More Tabs than any path here needs: a step that takes more is a step a person would give up on. */
const MAX_TABS = 25;

let profiles = 0;

/** A profile of the test's own with conversations `titles` (the last on top) and one folder; the page shows it. */
async function seed(page: Page, titles: readonly string[], folder: string): Promise<string[]> {
  const base = new URL(page.url()).origin;
  const post = (p: string, data: unknown) => page.request.post(`${base}${p}`, { data });
  expect((await post('/api/profile/switch', { name: `kbd-${process.pid}-${Date.now().toString(36)}-${++profiles}` })).ok()).toBe(true);
  const ids: string[] = [];
  for (const title of titles) {
    const { session } = (await (await post('/api/session/new', {})).json()) as { session: { session_id: string } };
    await post('/api/session/rename', { session_id: session.session_id, title });
    await post('/api/session/message', { session_id: session.session_id, text: `notes on ${title.toLowerCase()}` });
    ids.push(session.session_id);
  }
  expect((await post('/api/folders/new', { name: folder })).ok()).toBe(true);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  return ids;
}

const active = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return { testid: el?.dataset.testid ?? '', session: el?.dataset.sessionId ?? el?.closest<HTMLElement>('[data-session-id]')?.dataset.sessionId ?? '', text: (el?.textContent ?? '').trim() };
  });

/** Tab (or Shift+Tab) until the focused element's test id is `testid`; fails after MAX_TABS. */
async function tabTo(page: Page, testid: string, back = false): Promise<number> {
  for (let n = 1; n <= MAX_TABS; n++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    if ((await active(page)).testid === testid) return n;
  }
  throw new Error(`${testid} not reached in ${MAX_TABS} ${back ? 'Shift+Tabs' : 'Tabs'}`);
}

const shownId = (page: Page) => new URL(page.url()).hash.replace('#s=', '');

for (const size of SIZES) {
  test(`a day by keyboard alone: open, move, select several, delete, undo, search, send (${size.width}×${size.height})`, async ({ app: page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(size);
    const narrow = size.width < 900;
    const tag = `${size.width}`;
    const [lease, trip, tax] = await seed(page, [`Lease renewal ${tag}`, `Trip to Porto ${tag}`, `Tax return ${tag}`], `Home ${tag}`);
    await page.locator('body').focus();

    // Open: to the list (in a small window, its drawer's button first), then arrows and Enter.
    if (narrow) {
      await tabTo(page, 'sessions-toggle');
      await page.keyboard.press('Enter');
    }
    await tabTo(page, 'session-item');
    expect((await active(page)).session).toBe(tax);
    await page.keyboard.press('ArrowDown');
    expect((await active(page)).session).toBe(trip);
    await page.keyboard.press('Enter');
    await expect.poll(() => shownId(page)).toBe(trip);
    await expect(page.getByTestId('session-title')).toHaveText(`Trip to Porto ${tag}`);

    // Move: M on a row, the menu's arrows and Enter put it in the folder.
    if (narrow && !(await page.locator('#sidebar.drawer-open').count())) {
      await tabTo(page, 'sessions-toggle', true);
      await page.keyboard.press('Enter');
      await tabTo(page, 'session-item');
    }
    if ((await active(page)).session !== trip) {
      await page.keyboard.press('Home');
      while ((await active(page)).session !== trip) await page.keyboard.press('ArrowDown');
    }
    await page.keyboard.press('m');
    const menu = page.getByTestId('move-menu');
    await expect(menu).toBeVisible();
    for (let i = 0; i < 10 && (await active(page)).text !== `Home ${tag}`; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(menu).toHaveCount(0);
    const folder = page.getByTestId('session-folder').filter({ has: page.locator(`[data-session-id="${trip}"]`) });
    await expect(folder).toHaveCount(1);
    expect((await active(page)).session).toBe(trip);

    // Select several: the two outside the folder, from the newest by Shift+Down; the bar says so.
    await page.keyboard.press('Home');
    for (let i = 0; i < 10 && (await active(page)).session !== tax; i++) await page.keyboard.press('ArrowDown');
    const first = (await active(page)).session;
    await page.keyboard.press('Shift+ArrowDown');
    const second = (await active(page)).session;
    expect(new Set([first, second])).toEqual(new Set([tax, lease]));
    await expect(page.getByTestId('selection-bar')).toContainText('2 selected');

    // Delete both: one notice with one Undo, reached by keys, brings both back.
    await page.keyboard.press('Delete');
    const toast = page.getByTestId('toast').filter({ hasText: 'Deleted 2 conversations' });
    await expect(toast).toBeVisible();
    await expect(page.locator(`[data-testid="session-row"][data-session-id="${tax}"]`)).toHaveCount(0);
    // Ctrl+Z takes the notice's Undo from where the keyboard is (the notice sits in the conversation column, and
    // behind the list's drawer in a small window).
    await page.keyboard.press('Control+z');
    await expect(toast).toHaveCount(0);
    await expect(page.locator(`[data-testid="session-row"][data-session-id="${tax}"]`)).toHaveCount(1);
    await expect(page.locator(`[data-testid="session-row"][data-session-id="${lease}"]`)).toHaveCount(1);

    // Search: Ctrl+K, a word from one conversation, Enter on the result opens it.
    await page.keyboard.press('Control+k');
    await expect(page.getByTestId('session-search')).toBeFocused();
    await page.keyboard.type(`lease renewal`);
    const results = page.getByTestId('search-results');
    await expect(results).toBeVisible();
    await expect(results.locator('[role="option"]').first()).toBeVisible();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => shownId(page)).toBe(lease);

    // Send: Escape leaves the search (in a small window the drawer closed as the result opened); from the search
    // field, whose keys are its own, one Tab to the list; then / to the message box, type, Enter.
    await page.keyboard.press('Escape');
    if ((await active(page)).testid === 'session-search') await page.keyboard.press('Tab');
    await page.keyboard.press('/');
    await expect(page.getByTestId('composer-input')).toBeFocused();
    await page.keyboard.type('Remind me when the lease ends.');
    await page.keyboard.press('Enter');
    await expect(page.locator('[data-testid="message"][data-role="user"]').filter({ hasText: 'Remind me when the lease ends.' }).first()).toBeVisible();
    await page.screenshot({ path: test.info().outputPath(`keyboard-day-${tag}.png`) });
  });
}
