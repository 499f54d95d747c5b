/// <reference lib="dom" />
// What the Inbox did not take, as Settings shows it (issue 33): a hard link to a key and a file whose name is
// not UTF-8, dropped into a watched folder, are counted and each named with why beside the folder; the key's
// bytes never reach the Inbox conversation.
import { expect, test } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApp } from './helpers/chat.js';
import { startServer, type RunningServer } from './helpers/server.js';

let server: RunningServer;
let root: string;
let scans: string;
test.beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-e2e-inbox-skipped-')));
  scans = path.join(root, 'scans');
  fs.mkdirSync(scans, { mode: 0o700 });
  fs.mkdirSync(path.join(root, '.ssh'), { mode: 0o700 });
  fs.writeFileSync(path.join(root, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY----- e2e key');
  server = await startServer({ SATCHEL_INBOX_FOLDERS: scans });
});
test.afterAll(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

test('a hard link and a name that is not UTF-8 are counted and named in Settings', async ({ page }) => {
  await openApp(page, server);
  const dialog = page.getByTestId('settings-dialog');
  const open = async () => {
    await page.getByTestId('settings-button').click();
    await expect(dialog).toBeVisible();
  };
  await open();
  const row = dialog.getByTestId('inbox-folder').filter({ hasText: scans });
  await expect(row).toHaveAttribute('data-status', 'watching');
  // Made once the folder is watched (what a configured folder holds when first seen is taken as seen).
  fs.linkSync(path.join(root, '.ssh', 'id_rsa'), path.join(scans, 'notes.txt'));
  fs.writeFileSync(Buffer.concat([Buffer.from(`${scans}/r`), Buffer.from([0xe9]), Buffer.from('sum\u00e9.txt')]), 'a Latin-1 name');
  await expect(async () => {
    await page.keyboard.press('Escape');
    await open();
    await expect(dialog.getByTestId('inbox-counts')).toHaveText('Since Satchel started: 1 with a name that is not UTF-8, 1 refused as hard links.', { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  const skipped = row.getByTestId('inbox-folder-skipped');
  await expect(skipped).toHaveCount(2);
  await expect(skipped.filter({ hasText: 'notes.txt' })).toHaveText(
    'Not taken: “notes.txt”: it has more than one link (a hard link can reach a file kept anywhere, such as a key), so it is not read.',
  );
  await expect(skipped.filter({ hasText: 'UTF-8' })).toHaveText('Not taken: “r\uFFFDsumé.txt”: its name is not valid UTF-8; rename it to bring it in.');
});
