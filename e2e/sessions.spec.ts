/// <reference lib="dom" />
// Sessions: create, rename, switch, and two windows kept in sync through server-sent events.
import fs from 'node:fs';
import path from 'node:path';
import { expect, newSession, test } from './fixtures.js';

test('rename and pick sessions from the sidebar, by keyboard too', async ({ app: page, server }) => {
  const first = await newSession(page, server.workspace);
  await page.getByTestId('rename-session').click();
  await page.getByTestId('rename-input').fill('Tax documents');
  await page.getByTestId('rename-input').press('Enter');
  await expect(page.getByTestId('session-title')).toHaveText('Tax documents');
  await expect(page.locator(`[data-session-id="${first}"] [data-testid="session-item-title"]`)).toHaveText('Tax documents');

  const second = await newSession(page, server.workspace);
  expect(second).not.toBe(first);
  await expect(page.getByTestId('session-title')).toHaveText('Untitled');
  // Escape cancels a rename.
  await page.getByTestId('session-title').dblclick();
  await page.getByTestId('rename-input').fill('Never saved');
  await page.getByTestId('rename-input').press('Escape');
  await expect(page.getByTestId('session-title')).toHaveText('Untitled');

  const item = page.locator(`[data-testid="session-item"][data-session-id="${first}"]`);
  await item.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('session-title')).toHaveText('Tax documents');
  await expect(item).toHaveAttribute('aria-current', 'page');
});

test('two windows on the same session stay in sync', async ({ app: a, server, context }) => {
  const id = await newSession(a, server.workspace);
  const b = await context.newPage();
  await b.goto(`${server.base}/#s=${id}`);
  await expect(b.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(b.getByTestId('session-title')).toHaveText('Untitled');
  await expect(b.getByTestId('connection-status')).toHaveAttribute('data-status', 'live');
  await expect(a.getByTestId('connection-status')).toHaveAttribute('data-status', 'live');

  await a.getByTestId('rename-session').click();
  await a.getByTestId('rename-input').fill('Shared plans');
  await a.getByTestId('rename-input').press('Enter');
  await expect(b.getByTestId('session-title')).toHaveText('Shared plans');
  await expect(b.locator(`[data-session-id="${id}"] [data-testid="session-item-title"]`)).toHaveText('Shared plans');

  await a.getByTestId('file-input').setInputFiles({ name: 'plan.txt', mimeType: 'text/plain', buffer: Buffer.from('the plan') });
  await expect(b.getByTestId('session-attachments')).toContainText('plan.txt');

  await a.getByTestId('composer-input').fill('See the plan');
  await a.getByTestId('send').click();
  await expect(b.getByTestId('message-text').last()).toHaveText('See the plan');

  fs.writeFileSync(path.join(server.workspace, `sync-${id}.txt`), 'x');
  await a.getByTestId('ws-file-input').setInputFiles({ name: `up-${id}.txt`, mimeType: 'text/plain', buffer: Buffer.from('y') });
  await expect(b.locator(`[data-testid="ws-entry"][data-path="up-${id}.txt"]`)).toBeVisible();

  // A session created in window A appears in window B's list.
  const other = await newSession(a, server.workspace);
  await expect(b.locator(`[data-testid="session-item"][data-session-id="${other}"]`)).toBeVisible();
  await b.close();
});

test('the theme toggle cycles system, light and dark and is remembered', async ({ app: page }) => {
  const toggle = page.getByTestId('theme-toggle');
  await expect(toggle).toHaveAttribute('data-mode', 'system');
  await toggle.click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await toggle.click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(bg).toBe('rgb(18, 19, 24)');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.getByTestId('theme-toggle').click();
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./);
});

test('switching profile shows only that profile’s sessions', async ({ app: page, server }) => {
  const mine = await newSession(page, server.workspace);
  // Something typed in it: an untouched new conversation is not kept once left (issue 38).
  await page.getByTestId('composer-input').fill('kept');
  const profile = page.getByTestId('profile-select');
  await profile.selectOption('__new__');
  await page.getByTestId('prompt-input').fill('work');
  await page.getByTestId('prompt-ok').click();
  await expect(profile).toHaveValue('work');
  await expect(page.locator(`[data-testid="session-item"][data-session-id="${mine}"]`)).toHaveCount(0);
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === 'satchel_profile')?.value).toBe('work');
  const workSession = await newSession(page, server.workspace);
  await profile.selectOption('default');
  await expect(page.locator(`[data-testid="session-item"][data-session-id="${mine}"]`)).toBeVisible();
  await expect(page.locator(`[data-testid="session-item"][data-session-id="${workSession}"]`)).toHaveCount(0);
  // An invalid name is refused with the server's message and the selection goes back.
  await profile.selectOption('__new__');
  await page.getByTestId('prompt-input').fill('Not Valid!');
  await page.getByTestId('prompt-ok').click();
  await expect(page.getByTestId('toast').last()).toContainText(/profile/i);
  await expect(profile).toHaveValue('default');
});

test('a file attached the moment a new session is created goes into that session, not a second one', async ({ app: page, server }) => {
  const before = await page.getByTestId('session-item').count();
  await page.getByTestId('new-session').click();
  const dialog = page.getByTestId('new-session-dialog');
  await dialog.getByTestId('workspace-select').selectOption(server.workspace);
  await dialog.getByTestId('create-session').click();
  await expect(dialog).toBeHidden();
  // No waiting for the new session to be on screen: a quick person drops a file as soon as the dialog closes.
  await page.getByTestId('file-input').setInputFiles({ name: 'quick.txt', mimeType: 'text/plain', buffer: Buffer.from('dropped at once') });
  await expect(page.getByTestId('attachment-chip')).toHaveCount(1);
  await expect(page.getByTestId('session-item')).toHaveCount(before + 1);
  // The session on screen (its id in the address once it has opened) holds the file.
  await expect
    .poll(async () => {
      const id = new URL(page.url()).hash.replace('#s=', '');
      const res = await page.request.get(`${server.base}/api/session?session_id=${id}`);
      if (!res.ok()) return [];
      return ((await res.json()) as { session: { attachments: { filename: string }[] } }).session.attachments.map((a) => a.filename);
    })
    .toEqual(['quick.txt']);
});
