/// <reference lib="dom" />
// Inbox folders end to end (issue 26): the headless server started with SATCHEL_INBOX_FOLDERS watches a
// "Downloads" folder; a file a browser saves there (written as .crdownload, then renamed) appears once in the
// Inbox conversation of the open window, live, with its chip saying what the agent will get; the partial file
// is never taken. Screenshot for the README.
import { test, expect } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApp } from './helpers/chat.js';
import { startServer, type RunningServer } from './helpers/server.js';
import { screenshotDir } from './helpers/screenshot-dir.js';

let server: RunningServer;
let downloads: string;
test.beforeAll(async () => {
  // mkdtemp makes it 0700, and "Downloads" in it 0755 (umask 022): a folder other users can write to is refused
  // (server/inbox/folders.ts). The thread's row names the folder: "… arrived from Downloads".
  downloads = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-e2e-downloads-')), 'Downloads');
  fs.mkdirSync(downloads, { mode: 0o755 });
  server = await startServer({ SATCHEL_INBOX_FOLDERS: downloads });
});
test.afterAll(async () => {
  await server?.stop();
  fs.rmSync(path.dirname(downloads), { recursive: true, force: true });
});

test('a file saved into a watched folder appears once in the Inbox conversation, live', async ({ page }, info) => {
  await openApp(page, server);
  // A browser's download: the partial file first, then renamed to its name when complete.
  const partial = path.join(downloads, 'invoice-0425.txt.crdownload');
  fs.writeFileSync(partial, 'Invoice 0425: 3 hours of ');
  await page.waitForTimeout(500);
  fs.appendFileSync(partial, 'plumbing, 180 euros.\n');
  fs.renameSync(partial, path.join(downloads, 'invoice-0425.txt'));

  const inbox = page.getByTestId('session-item').filter({ hasText: 'Inbox' });
  await expect(inbox).toHaveCount(1, { timeout: 20_000 });
  await inbox.click();
  const chips = page.locator('#session-attachments li');
  await expect(chips).toHaveCount(1, { timeout: 20_000 });
  await expect(chips.first()).toContainText('invoice-0425.txt');
  await expect(chips.first().getByTestId('agent-view-text')).toHaveText('Ready: 46 characters of text');
  // The bytes stored are the finished file's, and nothing of the partial one was taken.
  const stored = fs.readdirSync(path.join(server.stateDir, 'attachments'), { recursive: true }).map(String);
  expect(stored.filter((n) => n.endsWith('.txt'))).toEqual([expect.stringMatching(/invoice-0425\.txt$/)]);
  expect(stored.some((n) => n.includes('crdownload'))).toBe(false);

  // The thread itself says what arrived, with the file's chip, instead of "Start a session".
  const rows = page.getByTestId('arrival-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByTestId('arrival-text')).toHaveText('invoice-0425.txt arrived from Downloads');
  await expect(rows.first().getByTestId('agent-view-text')).toHaveText('Ready: 46 characters of text');
  await expect(page.locator('#empty-state')).toBeHidden();

  // Live: two more files within the row's minute join it, while the window stays open.
  fs.writeFileSync(path.join(downloads, 'meeting-notes.md'), '# Kitchen renovation\n\nTiles chosen: white, 10x10. Plumber booked for Tuesday.\n');
  fs.writeFileSync(path.join(downloads, 'packing-list.txt'), 'passport\ncharger\nrain jacket\n');
  await expect(rows.first().getByTestId('arrival-text')).toHaveText('3 files arrived from Downloads', { timeout: 20_000 });
  await expect(rows.first().getByTestId('message-attachment')).toHaveCount(3);
  await expect(rows).toHaveCount(1);

  // A chip opens the file's preview, as any attachment's does.
  await rows.first().getByTestId('attachment-open').filter({ hasText: 'meeting-notes.md' }).click();
  const preview = page.getByTestId('preview-dialog');
  await expect(preview).toBeVisible();
  await expect(preview).toContainText('Plumber booked for Tuesday.');
  await page.keyboard.press('Escape');
  await expect(preview).toBeHidden();

  // Kept: after a reload the row is read back from the store.
  await page.reload();
  await page.getByTestId('session-item').filter({ hasText: 'Inbox' }).click();
  await expect(page.getByTestId('arrival-row')).toHaveCount(1, { timeout: 10_000 });
  await expect(page.getByTestId('arrival-row').getByTestId('arrival-text')).toHaveText('3 files arrived from Downloads');
  // The two written together arrive in either order: each chip still says what the agent gets of its file.
  const lines = page.getByTestId('arrival-row').getByTestId('agent-view-text');
  await expect(lines).toHaveCount(3);
  await expect(lines.first()).toHaveText('Ready: 46 characters of text');
  await expect.poll(async () => (await lines.allTextContents()).slice(1).sort()).toEqual(['Ready: 29 characters of text', 'Ready: 78 characters of text']);
  await page.screenshot({ path: path.join(screenshotDir(info), 'inbox.png') });

  // A bigger burst stays a few lines tall: 6 chips, and a button for the rest.
  for (let i = 1; i <= 5; i++) fs.writeFileSync(path.join(downloads, `page-${i}.txt`), `Scanned page ${i}.\n`);
  const row = page.getByTestId('arrival-row');
  await expect(row.getByTestId('arrival-text')).toHaveText('8 files arrived from Downloads', { timeout: 20_000 });
  await expect(row.getByTestId('message-attachment')).toHaveCount(6);
  await row.getByTestId('arrival-more').filter({ hasText: 'Show all 8 files' }).click();
  await expect(row.getByTestId('message-attachment')).toHaveCount(8);
  await expect(row.getByTestId('arrival-more')).toHaveCount(0);
});
