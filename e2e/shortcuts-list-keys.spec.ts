/// <reference lib="dom" />
// Issue 38, item 1's last part: the `?` dialog lists the conversation list's own keys (the roving listbox's: ↑/↓,
// Home/End, Enter, Delete, P, A, Shift+arrows, Space, Ctrl+A, Esc) under the global shortcuts, at 1280×800 and
// 800×600, light and dark; opened and closed by keyboard only from a row of the list; axe finds nothing serious.
// A key listed is a key the list acts on: P, pressed on the row the dialog was opened from, pins it.
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { screenshotDir } from './helpers/screenshot-dir.js';

const SIZES = [
  { width: 1280, height: 800, scheme: 'light' },
  { width: 800, height: 600, scheme: 'dark' },
] as const;
/** styles.css / drawers.ts: below this the list is a drawer. */
const NARROW_MAX_WIDTH_PX = 899;

/** What each row of the list's part says, label then keys (Linux: Ctrl, named keys). */
const LIST_ROWS: [string, string][] = [
  ['list-move', 'Previous or next conversation↑ / ↓'],
  ['list-ends', 'First or last conversationHome / End'],
  ['list-open', 'Open the conversationEnter'],
  ['list-delete', 'Delete it (or the selected ones), with UndoDelete / Backspace'],
  ['list-pin', 'Pin or unpin it (or the selected ones)P'],
  ['list-archive', 'Archive or unarchive it (or the selected ones)A'],
  ['list-extend', 'Select several: extend the selection up or downShift+↑ / Shift+↓'],
  ['list-toggle', 'Select or unselect the focused conversationSpace'],
  ['list-all', 'Select every conversation in the listCtrl+A'],
  ['list-one', 'Back to one selected conversationEsc'],
  ['list-move-to', 'Move it (or the selected ones) to a folderM / Shift+F10'],
  ['list-fold', 'Fold its folder←'],
  ['list-folders', 'Folders: fold, unfold, rename, delete, newF'],
  ['list-rename-folder', 'Rename its folderF2'],
];

let profiles = 0;

/** A profile of the test's own with one conversation titled `title`; the page shows it. */
async function seed(page: Page, title: string): Promise<string> {
  const base = new URL(page.url()).origin;
  const post = (p: string, data: unknown) => page.request.post(`${base}${p}`, { data });
  expect((await post('/api/profile/switch', { name: `keys-${process.pid}-${Date.now().toString(36)}-${++profiles}` })).ok()).toBe(true);
  const { session } = (await (await post('/api/session/new', {})).json()) as { session: { session_id: string } };
  await post('/api/session/rename', { session_id: session.session_id, title });
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  return session.session_id;
}

for (const size of SIZES) {
  test(`${size.width}x${size.height} ${size.scheme}: \`?\` lists the conversation list's keys, by keyboard only`, async ({ app: page }, info) => {
    await page.emulateMedia({ colorScheme: size.scheme });
    await page.setViewportSize({ width: size.width, height: size.height });
    const id = await seed(page, 'Keys to the list');
    if (size.width <= NARROW_MAX_WIDTH_PX) await page.getByTestId('sessions-toggle').click();
    const option = page.locator(`[data-testid="session-item"][data-session-id="${id}"]`);
    await option.focus();
    await expect(option).toBeFocused();

    await page.keyboard.press('Shift+Slash');
    const dialog = page.getByTestId('shortcuts-dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('heading', { name: 'In the conversation list' })).toBeVisible();
    const rows = dialog.getByTestId('list-key-row');
    await expect(rows).toHaveCount(LIST_ROWS.length);
    for (const [i, [action, text]] of LIST_ROWS.entries()) {
      await expect(rows.nth(i)).toHaveAttribute('data-action', action);
      await expect(rows.nth(i)).toHaveText(text);
    }
    // The list's part is a table of its own, named by its heading.
    await expect(dialog.getByRole('table', { name: 'In the conversation list' })).toBeVisible();
    // The global shortcuts are still all there, above it.
    await expect(dialog.getByTestId('shortcut-row').first()).toHaveText('New conversationCtrl+Shift+O');
    // The last row can be reached in the window (the dialog scrolls in a small one), and so can Close, by Tab.
    await rows.last().scrollIntoViewIfNeeded();
    await expect(rows.last()).toBeInViewport();
    await page.screenshot({ path: path.join(screenshotDir(info), `shortcuts-list-keys-${size.width}x${size.height}-${size.scheme}.png`) });

    const axe = await new AxeBuilder({ page }).include('[data-testid="shortcuts-dialog"]').analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);

    const close = dialog.getByTestId('shortcuts-close');
    for (let i = 0; i < 4 && !(await close.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    await expect(close).toBeFocused();
    await expect(close).toBeInViewport();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();

    // What the dialog lists is what the list does: P on the row pins it.
    await option.focus();
    await page.keyboard.press('p');
    await expect(page.locator('[data-testid="session-group"][data-group="pinned"]').locator(`[data-testid="session-item"][data-session-id="${id}"]`)).toHaveCount(1);
  });
}
