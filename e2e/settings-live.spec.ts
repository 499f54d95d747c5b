/// <reference lib="dom" />
// Issue 38, item 9: Settings' Inbox counts are live while the dialog is open — a file saved into a watched folder
// is counted without closing and reopening Settings (before the fix the count stayed as it was when opened).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { openApp } from './helpers/chat.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { startServer } from './helpers/server.js';

/** Arrival waits out the watcher's settle time and the extraction; generous on a loaded 2-core machine. */
const ARRIVAL_DEADLINE_MS = 30_000;

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]) {
  test(`${viewport.width}×${viewport.height}: the Inbox counts follow arrivals while Settings is open`, async ({ page }, info) => {
    test.setTimeout(120_000);
    // mkdtemp makes 0700 folders: a folder other users can write to is refused (server/inbox/folders.ts).
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-e2e-inbox-live-')));
    const scans = path.join(root, 'scans');
    fs.mkdirSync(scans, { mode: 0o700 });
    const server = await startServer();
    try {
      await page.setViewportSize(viewport);
      await openApp(page, server);
      // Keyboard only: Ctrl+, opens Settings.
      await page.keyboard.press('Control+,');
      const dialog = page.getByTestId('settings-dialog');
      await expect(dialog).toBeVisible();
      await dialog.getByTestId('inbox-add-path').fill(scans);
      await dialog.getByTestId('inbox-add-path').press('Enter');
      const added = dialog.getByTestId('inbox-folder').filter({ hasText: scans });
      await expect(added).toHaveAttribute('data-status', 'watching');
      const counts = dialog.getByTestId('inbox-counts');
      await expect(counts).toHaveText('No file has arrived since Satchel started.');

      fs.writeFileSync(path.join(scans, 'scan-0001.txt'), 'Scanned receipt: 12 euros.\n');
      await expect(counts).toHaveText('Since Satchel started: 1 arrived.', { timeout: ARRIVAL_DEADLINE_MS });
      fs.writeFileSync(path.join(scans, 'scan-0002.txt'), 'Scanned receipt: 30 euros.\n');
      await expect(counts).toHaveText('Since Satchel started: 2 arrived.', { timeout: ARRIVAL_DEADLINE_MS });
      // The dialog stayed open all along, and the list was not rebuilt under the keyboard's focus.
      await expect(dialog).toBeVisible();
      await added.getByTestId('inbox-remove').focus();
      fs.writeFileSync(path.join(scans, 'scan-0003.txt'), 'Scanned receipt: 7 euros.\n');
      await expect(counts).toHaveText('Since Satchel started: 3 arrived.', { timeout: ARRIVAL_DEADLINE_MS });
      await expect(added.getByTestId('inbox-remove')).toBeFocused();
      await page.screenshot({ path: path.join(screenshotDir(info), `settings-inbox-live-${viewport.width}x${viewport.height}.png`) });
      await page.keyboard.press('Escape');
      await expect(dialog).toBeHidden();
    } finally {
      await server.stop();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
}
