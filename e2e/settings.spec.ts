/// <reference lib="dom" />
// The Settings dialog (issue 26). In a plain browser: Inbox folders against the real server (a temp folder added
// appears watching, a file saved into it is counted, a refused one shows the rule's sentence beside the field,
// one from SATCHEL_INBOX_FOLDERS is listed refused with its words and no Remove, pause/resume, remove), and no
// Desktop section. In the desktop window: the Desktop section driven through a fake window.satchel injected
// before the page loads (the page's side of the IPC: what it sends, what it shows). Axe-clean; screenshot.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApp } from './helpers/chat.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { startServer, type RunningServer } from './helpers/server.js';

let server: RunningServer;
let root: string;
let scans: string;
let linked: string;
test.beforeAll(async () => {
  // mkdtemp makes 0700 folders: a folder other users can write to is refused (server/inbox/folders.ts).
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-e2e-settings-')));
  scans = path.join(root, 'scans');
  fs.mkdirSync(scans, { mode: 0o700 });
  linked = path.join(root, 'scans-link');
  fs.symlinkSync(scans, linked);
  // The environment names a symlink: listed, refused with the rule's words, and not removable from the page.
  server = await startServer({ SATCHEL_INBOX_FOLDERS: linked });
});
test.afterAll(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).include('#settings-dialog').analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function openSettings(page: Page): Promise<void> {
  await page.getByTestId('settings-button').click();
  await expect(page.getByTestId('settings-dialog')).toBeVisible();
}

test('Inbox folders in a plain browser: add, refuse with the rule’s words, count, pause, resume, remove', async ({ page }) => {
  await openApp(page, server);
  // From the keyboard: Ctrl+, opens the dialog, and the `?` dialog lists it.
  await page.keyboard.press('Control+,');
  const dialog = page.getByTestId('settings-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('desktop-settings')).toBeHidden();
  await expect(dialog.getByTestId('inbox-choose')).toBeHidden();

  const rows = dialog.getByTestId('inbox-folder');
  const envRow = rows.filter({ hasText: linked });
  await expect(envRow).toHaveAttribute('data-status', 'refused');
  await expect(envRow.getByTestId('inbox-folder-error')).toHaveText('A watched folder cannot be a symlink; pick the folder it points to');
  await expect(envRow.getByTestId('inbox-folder-source')).toHaveText('Set by SATCHEL_INBOX_FOLDERS: change it there, it cannot be removed here');
  await expect(envRow.getByTestId('inbox-remove')).toHaveCount(0);

  // Refused folders: the server's sentence beside the field, the field kept for correcting.
  const field = dialog.getByTestId('inbox-add-path');
  const addError = dialog.getByTestId('inbox-add-error');
  for (const [folder, words] of [
    ['/etc', 'A system folder cannot be watched'],
    [linked, 'A watched folder cannot be a symlink; pick the folder it points to'],
    ['relative/folder', 'A watched folder must be an absolute path'],
  ] as const) {
    await field.fill(folder);
    await field.press('Enter');
    await expect(addError).toHaveText(words);
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    await expect(field).toHaveValue(folder);
  }
  await expect(rows).toHaveCount(1);
  // Closed and opened again, the dialog starts without the last refusal.
  await page.keyboard.press('Escape');
  await openSettings(page);
  await expect(addError).toBeHidden();

  await field.fill(scans);
  await dialog.getByTestId('inbox-add').click();
  const added = rows.filter({ hasText: scans }).filter({ hasNotText: 'SATCHEL_INBOX_FOLDERS' });
  await expect(added).toHaveAttribute('data-status', 'watching');
  await expect(added.getByTestId('inbox-folder-status')).toHaveText('Watching');
  await expect(added.getByTestId('inbox-folder-source')).toHaveText('Added in Settings');
  await expect(addError).toBeHidden();
  await expect(field).toHaveValue('');
  await expect(dialog.getByTestId('inbox-counts')).toHaveText('No file has arrived since Satchel started.');

  // A file saved into it arrives; reopening the dialog reads the counts afresh.
  fs.writeFileSync(path.join(scans, 'scan-0001.txt'), 'Scanned receipt: 12 euros.\n');
  await expect(async () => {
    await page.keyboard.press('Escape');
    await openSettings(page);
    await expect(dialog.getByTestId('inbox-counts')).toHaveText('Since Satchel started: 1 arrived.', { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });

  const pause = dialog.getByTestId('inbox-pause');
  await expect(pause).toHaveText('Pause watching');
  await pause.click();
  await expect(pause).toHaveText('Resume watching');
  await expect(added).toHaveAttribute('data-status', 'paused');
  await expect(dialog.getByTestId('inbox-paused-line')).toHaveText('Paused: nothing is read; what appears meanwhile arrives on resume.');
  expect((await (await page.request.get(`${server.base}/api/inbox/folders`)).json()).paused).toBe(true);
  await pause.click();
  await expect(pause).toHaveText('Pause watching');
  await expect(added).toHaveAttribute('data-status', 'watching');

  await added.getByTestId('inbox-remove').click();
  await expect(added).toHaveCount(0);
  await expect(rows).toHaveCount(1);
  const listed = (await (await page.request.get(`${server.base}/api/inbox/folders`)).json()) as { folders: { path: string }[] };
  expect(listed.folders.map((f) => f.path)).toEqual([linked]);
  expect(await seriousViolations(page)).toEqual([]);

  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcuts-dialog').locator('[data-action="open-settings"]')).toHaveText(
    'Open Settings (Inbox folders, desktop shortcuts)Ctrl+,',
  );
});

/** The desktop app's preload, faked: records each call and answers like main/desktop-settings-ipc.ts. */
function installFakeDesktop(picked: string): void {
  {
    const DEFAULTS = { quickCapture: 'CommandOrControl+Shift+Space', pushToTalk: 'CommandOrControl+Shift+D' };
    const settings = { closeToTray: false, openAtLogin: false, shortcuts: { ...DEFAULTS }, pushToTalkTo: 'capture', openWithTo: 'inbox' };
    const w = window as unknown as { __calls: unknown[]; __failNext?: string; satchel: unknown };
    w.__calls = [];
    const problems = () =>
      settings.shortcuts.quickCapture === 'Alt+Space' ? ['Quick capture: Alt+Space is in use by another application; choose another shortcut in Settings'] : [];
    w.satchel = {
      version: '0.1.0',
      pickFolder: async () => picked,
      showInFolder: async () => false,
      desktopSettings: async (...args: unknown[]) => {
        w.__calls.push(JSON.parse(JSON.stringify(args)));
        if (args.length === 1) {
          if (w.__failNext) {
            const error = w.__failNext;
            w.__failNext = undefined;
            return { error };
          }
          const change = args[0] as { shortcuts?: Record<string, string> } & Record<string, unknown>;
          Object.assign(settings, { ...change, shortcuts: { ...settings.shortcuts, ...change.shortcuts } });
        }
        return { settings: structuredClone(settings), defaults: DEFAULTS, problems: problems(), openAtLoginSupported: false };
      },
    };
  }
}

test('the Desktop section in the desktop window: each change is sent at once, problems beside their field', async ({ page }, info) => {
  const picked = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-e2e-picked-')));
  try {
    await page.addInitScript(installFakeDesktop, picked);
    await openApp(page, server);
    await openSettings(page);
    const dialog = page.getByTestId('settings-dialog');
    const desktop = dialog.getByTestId('desktop-settings');
    await expect(desktop).toBeVisible();
    const calls = () => page.evaluate(() => (window as unknown as { __calls: unknown[] }).__calls);
    await expect.poll(calls).toEqual([[]]);

    const quick = desktop.locator('[data-testid="shortcut-setting"][data-action="quickCapture"]');
    await expect(quick.getByTestId('shortcut-input')).toHaveValue('CommandOrControl+Shift+Space');
    await expect(quick.getByTestId('shortcut-default')).toHaveText('Default: CommandOrControl+Shift+Space');
    await expect(quick.getByTestId('shortcut-reset')).toBeDisabled();
    await expect(quick.getByTestId('shortcut-problem')).toBeHidden();

    // A taken shortcut: sent as {shortcuts: …} when the field is committed, the sentence shown beside it.
    await quick.getByTestId('shortcut-input').fill('Alt+Space');
    await quick.getByTestId('shortcut-input').press('Enter');
    await expect(quick.getByTestId('shortcut-problem')).toHaveText('Quick capture: Alt+Space is in use by another application; choose another shortcut in Settings');
    await expect(quick.getByTestId('shortcut-input')).toHaveAttribute('aria-invalid', 'true');
    await expect(quick.getByTestId('shortcut-input')).toHaveValue('Alt+Space');
    expect((await calls())[1]).toEqual([{ shortcuts: { quickCapture: 'Alt+Space' } }]);
    await expect(dialog.getByTestId('desktop-error')).toBeHidden();

    // Open at login: disabled, with the reason.
    await expect(desktop.getByTestId('open-at-login')).toBeDisabled();
    await expect(desktop.getByTestId('open-at-login-reason')).toHaveText(
      'Not available on this system: Satchel can set it on macOS and Windows only. On Linux, add Satchel to your desktop’s startup applications.',
    );
    // Choices: each sent at once.
    await desktop.getByLabel('the clipboard').check();
    await desktop.getByLabel('the current conversation', { exact: true }).check();
    await desktop.getByTestId('close-to-tray').check();
    await expect.poll(async () => (await calls()).slice(2)).toEqual([[{ pushToTalkTo: 'clipboard' }], [{ openWithTo: 'current' }], [{ closeToTray: true }]]);
    await expect(desktop.getByLabel('the clipboard')).toBeChecked();

    // "Choose…" goes through the desktop app's folder picker and adds what it answers.
    await dialog.getByTestId('inbox-choose').click();
    await expect(dialog.getByTestId('inbox-folder').filter({ hasText: picked })).toHaveAttribute('data-status', 'watching');

    // Axe, in both schemes (the dialog's colours come from the theme's variables).
    const found: Record<string, string[]> = {};
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      found[scheme] = await seriousViolations(page);
    }
    expect(found).toEqual({ dark: [], light: [] });
    // Tall enough for the whole dialog in the README's picture.
    await page.setViewportSize({ width: 1360, height: 1200 });
    await dialog.evaluate((d) => d.scrollTo(0, 0));
    await page.screenshot({ path: path.join(screenshotDir(info), 'settings.png') });

    // Main's {error}: shown, and the field put back to what main holds.
    await page.evaluate(() => ((window as unknown as { __failNext: string }).__failNext = 'desktop-settings.json could not be written: disk full'));
    // (click, not uncheck: the page puts the box back at once, which uncheck() would take for a failed click)
    await desktop.getByTestId('close-to-tray').click();
    await expect(dialog.getByTestId('desktop-error')).toHaveText('desktop-settings.json could not be written: disk full');
    await expect(desktop.getByTestId('close-to-tray')).toBeChecked();


    // Reset puts the default back (sent as a change) and the sentence goes.
    await quick.getByTestId('shortcut-reset').click();
    await expect(quick.getByTestId('shortcut-problem')).toBeHidden();
    await expect(quick.getByTestId('shortcut-input')).toHaveValue('CommandOrControl+Shift+Space');
    expect((await calls()).at(-1)).toEqual([{ shortcuts: { quickCapture: 'CommandOrControl+Shift+Space' } }]);
    await expect(dialog.getByTestId('desktop-error')).toBeHidden();

    await dialog.getByTestId('inbox-folder').filter({ hasText: picked }).getByTestId('inbox-remove').click();
    await expect(dialog.getByTestId('inbox-folder').filter({ hasText: picked })).toHaveCount(0);
  } finally {
    fs.rmSync(picked, { recursive: true, force: true });
  }
});

test('the desktop menus’ Settings… address (#settings) opens the dialog, then gives the address back to the conversation', async ({ page }) => {
  await openApp(page, server);
  const before = new URL(page.url()).hash;
  expect(before).toMatch(/^#s=/);
  // What main/desktop-shell.ts does for File → Settings… and the tray's Settings…: load the same page at #settings.
  await page.evaluate(() => {
    location.hash = '#settings';
  });
  await expect(page.getByTestId('settings-dialog')).toBeVisible();
  expect(new URL(page.url()).hash).toBe(before);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('settings-dialog')).toBeHidden();
  // Loaded at #settings from the start (the window opened by the menu): the dialog opens over the last conversation.
  await page.goto(`${server.base}/#settings`);
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('settings-dialog')).toBeVisible();
  expect(new URL(page.url()).hash).toBe(before);
});
