/// <reference lib="dom" />
// Workspace defaults and hidden files: the New session dialog preselects the server's default workspace (never
// the home folder, which the trusted roots also list), and hidden entries appear only after the person turns on
// "Show hidden files", a choice the panel remembers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from './fixtures.js';

test('the New session dialog preselects the default workspace, not the home folder', async ({ app: page, server }) => {
  await page.getByTestId('new-session').click();
  const dialog = page.getByTestId('new-session-dialog');
  await expect(dialog).toBeVisible();
  const select = dialog.getByTestId('workspace-select');
  // The home folder is still offered (it vouches for folders under it) …
  await expect(select.locator('option', { hasText: os.homedir() }).first()).toBeAttached();
  // … but what Create uses without a choice is the server's default.
  await expect(select).toHaveValue(server.workspace);
  expect(await select.inputValue()).not.toBe(os.homedir());
  await dialog.getByTestId('create-session').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('session-workspace')).toHaveText(`Workspace: ${server.workspace}`);
});

test('a file attached before any session is open starts one in the default workspace, not the home folder', async ({ app: page, server }) => {
  // A profile of its own has no sessions, so nothing is open when the file arrives.
  const profile = page.getByTestId('profile-select');
  const name = `fresh-${Date.now().toString(36)}`;
  await profile.selectOption('__new__');
  await page.getByTestId('prompt-input').fill(name);
  await page.getByTestId('prompt-ok').click();
  await expect(profile).toHaveValue(name);
  await expect(page.getByTestId('session-item')).toHaveCount(0);
  await expect(page.getByTestId('session-workspace')).toHaveText('');
  await page.getByTestId('file-input').setInputFiles({ name: 'first.txt', mimeType: 'text/plain', buffer: Buffer.from('first') });
  await expect(page.locator('[data-testid="attachment-chip"][data-filename="first.txt"]')).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('session-workspace')).toHaveText(`Workspace: ${server.workspace}`);
});

test('"Show hidden files" lists and previews a hidden file, and is remembered', async ({ app: page, server }) => {
  const dir = path.join(server.workspace, `hidden-${Date.now().toString(36)}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'visible.txt'), 'in plain sight');
  fs.writeFileSync(path.join(dir, '.secret-note.txt'), 'only when asked');

  await page.getByTestId('new-session').click();
  const dialog = page.getByTestId('new-session-dialog');
  await dialog.getByTestId('add-folder').click();
  await page.getByTestId('prompt-input').fill(dir);
  await page.getByTestId('prompt-ok').click();
  await expect(dialog.getByTestId('workspace-select')).toHaveValue(dir);
  await dialog.getByTestId('create-session').click();
  await expect(page.getByTestId('ws-root')).toHaveText(dir);

  const toggle = page.getByTestId('ws-show-hidden');
  const hiddenEntry = page.locator('[data-testid="ws-entry"][data-path=".secret-note.txt"]');
  await expect(toggle).not.toBeChecked();
  await expect(page.locator('[data-testid="ws-entry"][data-path="visible.txt"]')).toBeVisible();
  await expect(hiddenEntry).toHaveCount(0);

  const listing = page.waitForRequest((req) => req.url().includes('/api/workspace/list') && new URL(req.url()).searchParams.get('hidden') === '1');
  await toggle.check();
  await listing;
  await expect(hiddenEntry).toBeVisible();

  const preview = page.waitForRequest((req) => req.url().includes('/api/workspace/preview') && new URL(req.url()).searchParams.get('hidden') === '1');
  await hiddenEntry.locator('> .tree-row').click();
  await preview;
  await expect(page.getByTestId('md-preview')).toHaveText('only when asked');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('preview-dialog')).toBeHidden();

  // The choice survives a reload.
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('ws-show-hidden')).toBeChecked();
  await expect(hiddenEntry).toBeVisible();

  await page.getByTestId('ws-show-hidden').uncheck();
  await expect(hiddenEntry).toHaveCount(0);
  await expect(page.locator('[data-testid="ws-entry"][data-path="visible.txt"]')).toBeVisible();
});
