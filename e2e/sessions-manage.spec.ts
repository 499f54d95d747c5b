/// <reference lib="dom" />
// Managing sessions from the sidebar: delete with Undo, delete for good once the Undo has passed (the
// attachment folder goes, the workspace stays), archive behind its toggle, and pinned sessions first.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { storedSession } from '../server/testing/stored-session.js';
import { expect, newSession, test } from './fixtures.js';

/** server/sessions/deletion.ts SESSION_DELETE_GRACE_MS, and time for the purge's few file operations. */
const PURGE_WAIT_MS = 15_000 + 10_000;

const row = (page: Page, id: string) => page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
/** A row's buttons show over it on hover (issue 38): the pointer goes to the row, then to the button. */
async function pointerAct(page: Page, id: string, testid: string): Promise<void> {
  await row(page, id).hover();
  await row(page, id).getByTestId(testid).click();
}
const attachmentFolder = (stateDir: string, id: string) => path.join(stateDir, 'attachments', id);
/** Whether the session's record is still in the database (read through a connection of the test's own). */
const isStored = async (stateDir: string, id: string) => (await storedSession(stateDir, id)) !== undefined;

async function attach(page: Page, name: string, text: string): Promise<void> {
  await page.getByTestId('file-input').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
  await expect(page.getByTestId('session-attachments')).toContainText(name);
}

test('delete takes the session off the list at once, and Undo brings it back with its draft and files', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  await attach(page, 'undo-notes.txt', 'kept by undo');
  await page.getByTestId('composer-input').fill('a thought to keep');

  await pointerAct(page, id, 'session-delete');
  await expect(row(page, id)).toHaveCount(0);
  const toast = page.getByTestId('toast').filter({ hasText: 'Deleted “Untitled”' });
  await expect(toast).toBeVisible();
  // Off the screen too: the page no longer shows the deleted session.
  await expect(page).not.toHaveURL(new RegExp(`#s=${id}$`));

  await toast.getByTestId('undo-delete').click();
  await expect(row(page, id)).toHaveCount(1);
  await expect(page).toHaveURL(new RegExp(`#s=${id}$`));
  await expect(page.getByTestId('composer-input')).toHaveValue('a thought to keep');
  await expect(page.getByTestId('session-attachments')).toContainText('undo-notes.txt');
  expect(fs.readdirSync(attachmentFolder(server.stateDir, id))).toContain('undo-notes.txt');
  // After the grace period it is still there: Undo cancelled the purge.
  await page.waitForTimeout(PURGE_WAIT_MS - 5_000);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(row(page, id)).toHaveCount(1);
  expect(await isStored(server.stateDir, id)).toBe(true);
});

test('a delete left alone is for good: the attachment folder goes, the workspace stays', async ({ app: page, server }) => {
  test.setTimeout(PURGE_WAIT_MS + 30_000);
  const id = await newSession(page, server.workspace);
  await attach(page, 'gone-notes.txt', 'purged');
  const mine = path.join(server.workspace, `mine-${id}.txt`);
  fs.writeFileSync(mine, 'the person’s own file');
  expect(fs.existsSync(attachmentFolder(server.stateDir, id))).toBe(true);

  // By keyboard: Delete on the focused row of the list (one Tab stop; its buttons are the pointer's).
  await row(page, id).getByTestId('session-item').focus();
  await expect(row(page, id).getByTestId('session-delete')).toHaveAttribute('aria-label', 'Delete “Untitled”');
  await page.keyboard.press('Delete');
  await expect(row(page, id)).toHaveCount(0);
  const toast = page.getByTestId('toast').filter({ hasText: 'Deleted “Untitled”' });
  await expect(toast).toBeVisible();
  // The Undo offer ends after 10 s (session-actions.ts UNDO_TOAST_MS).
  await expect(toast).toHaveCount(0, { timeout: 12_000 });

  await expect.poll(() => isStored(server.stateDir, id), { timeout: PURGE_WAIT_MS }).toBe(false);
  expect(fs.existsSync(attachmentFolder(server.stateDir, id))).toBe(false);
  expect(fs.readFileSync(mine, 'utf8')).toBe('the person’s own file');
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(row(page, id)).toHaveCount(0);
});

test('archive hides a session behind "Show archived (N)", and unarchive brings it back', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  const toggle = page.getByTestId('show-archived');
  await pointerAct(page, id, 'session-archive');
  await expect(row(page, id)).toHaveCount(0);
  await expect(toggle).toHaveText('Show archived (1)');
  await toggle.click();
  await expect(toggle).toHaveText('Hide archived (1)');
  const archived = page.locator('[data-testid="session-group"][data-group="archived"]');
  await expect(archived.getByTestId('session-group-label')).toHaveText('Archived');
  await expect(archived.locator(`[data-testid="session-row"][data-session-id="${id}"]`)).toHaveCount(1);
  // Kept across a reload: the flag is the server's.
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('show-archived')).toHaveText('Show archived (1)');
  await page.getByTestId('show-archived').click();
  await pointerAct(page, id, 'session-archive');
  await expect(page.getByTestId('show-archived')).toBeHidden();
  const today = page.locator('[data-testid="session-group"][data-group^="day-"]').first();
  await expect(today.getByTestId('session-group-label')).toHaveText('Today');
  await expect(today.locator(`[data-testid="session-row"][data-session-id="${id}"]`)).toHaveCount(1);
});

test('a pinned session is listed first, above newer ones, and stays there after a reload', async ({ app: page, server }) => {
  const older = await newSession(page, server.workspace);
  // Something typed in it: an untouched new conversation is not kept once left (issue 38).
  await page.getByTestId('composer-input').fill('kept');
  const newer = await newSession(page, server.workspace);
  const firstRow = page.locator('[data-testid="session-row"]').first();
  await expect(firstRow).toHaveAttribute('data-session-id', newer);

  const pin = row(page, older).getByTestId('session-pin');
  await expect(pin).toHaveAttribute('aria-label', 'Pin “Untitled”');
  await row(page, older).hover();
  await pin.click();
  await expect(firstRow).toHaveAttribute('data-session-id', older);
  const pinned = page.locator('[data-testid="session-group"][data-group="pinned"]');
  await expect(pinned.getByTestId('session-group-label')).toHaveText('Pinned');
  await expect(row(page, older).getByTestId('session-pin')).toHaveAttribute('aria-pressed', 'true');
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('[data-testid="session-row"]').first()).toHaveAttribute('data-session-id', older);
  // Unpinned, it goes back to its place by last activity (pinning was no activity).
  await pointerAct(page, older, 'session-pin');
  await expect(page.locator('[data-testid="session-row"]').first()).toHaveAttribute('data-session-id', newer);
  await expect(pinned).toHaveCount(0);
});
