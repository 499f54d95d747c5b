/// <reference lib="dom" />
// Issue 38, item 9: Ctrl+Shift+O (New conversation) and Create, then nothing sent: the empty conversation is not
// kept once another one is opened or made. One with something in it (typed, sent) is kept. Before the fix every
// Ctrl+Shift+O left an "Untitled" conversation behind.
import type { Page } from '@playwright/test';
import { createSession, expect, test } from './fixtures.js';

/** The New conversation dialog by its shortcut, Create focused: Enter makes the conversation. */
async function newByKeyboard(page: Page, workspace: string): Promise<string> {
  await page.keyboard.press('Control+Shift+O');
  const dialog = page.getByTestId('new-session-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByTestId('workspace-select').selectOption(workspace);
  return createSession(page, workspace);
}

const listed = (page: Page, id: string) => page.locator(`[data-testid="session-item"][data-session-id="${id}"]`);

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]) {
  test(`${viewport.width}×${viewport.height}: a new conversation left empty is not kept; one with a message is`, async ({ app: page, server }) => {
    await page.setViewportSize(viewport);
    const kept = await newByKeyboard(page, server.workspace);
    await page.getByTestId('composer-input').fill('A message, so this one stays');
    await page.getByTestId('composer-input').press('Enter');
    await expect(page.getByTestId('message-text').last()).toHaveText('A message, so this one stays');

    const empty = await newByKeyboard(page, server.workspace);
    await expect(page.getByTestId('session-title')).toHaveText('Untitled');
    // Left for another new one, with nothing sent: gone from the list and from the server.
    const next = await newByKeyboard(page, server.workspace);
    await expect(listed(page, empty)).toHaveCount(0);
    await expect
      .poll(async () => (await page.request.get(`${server.base}/api/session?${new URLSearchParams({ session_id: empty })}`)).status())
      .toBe(404);
    // Left for an existing one (Alt+↓, the next in the list): gone too; the one with a message stays.
    await page.keyboard.press('Alt+ArrowDown');
    await expect(page).not.toHaveURL(new RegExp(`#s=${next}$`));
    await expect(listed(page, next)).toHaveCount(0);
    await expect
      .poll(async () => (await page.request.get(`${server.base}/api/session?${new URLSearchParams({ session_id: next })}`)).status())
      .toBe(404);
    await expect(listed(page, kept)).toHaveCount(1);
    await page.goto(`${server.base}/#s=${kept}`);
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await expect(page.getByTestId('message-text').last()).toHaveText('A message, so this one stays');
  });
}
