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
  // mkdtemp makes it 0700: a folder other users can write to is refused (server/inbox/folders.ts).
  downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-e2e-downloads-'));
  server = await startServer({ SATCHEL_INBOX_FOLDERS: downloads });
});
test.afterAll(async () => {
  await server?.stop();
  fs.rmSync(downloads, { recursive: true, force: true });
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
  await page.screenshot({ path: path.join(screenshotDir(info), 'inbox.png') });
});
