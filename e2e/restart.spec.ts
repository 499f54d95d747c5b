// `npm run serve` restarted under a tab that stays open: the headless server comes back on the port it had
// (remembered in its state folder) with a new token, and the page, whose cookie now holds a stale token,
// says what to do instead of failing silently. The server runs as `npm run serve` runs it: dist/server/cli.js.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { serveCli, type Launched } from './helpers/server.js';

const RESTARTED_TEXT = 'Satchel restarted: open the new link printed in the terminal.';

/** `npm run serve` on `stateDir` (no --port: the remembered one is tried first). */
const serve = (stateDir: string, workspace: string) => serveCli(stateDir, workspace);

test('after a restart the open tab says to open the new link, and the new link works in it', async ({ page }) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-restart-'));
  const stateDir = path.join(root, 'state');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const running: Launched[] = [];
  try {
    const first = await serve(stateDir, workspace);
    running.push(first);
    await page.goto(`${first.base}/?token=${first.token}`);
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await expect(page.getByTestId('access-restarted')).toHaveCount(0);

    await first.stop();
    const second = await serve(stateDir, workspace);
    running.push(second);
    expect(second.base).toBe(first.base);
    expect(second.token).not.toBe(first.token);

    // The live-updates stream drops with the old server and is refused by the new one.
    const notice = page.getByTestId('access-restarted');
    await expect(notice).toBeVisible({ timeout: 20_000 });
    await expect(notice).toContainText(RESTARTED_TEXT);
    await expect(page.getByTestId('app')).toBeHidden();
    await expect(page.getByTestId('auth-required')).toBeHidden();

    await page.goto(`${second.base}/?token=${second.token}`);
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await expect(page.getByTestId('access-restarted')).toHaveCount(0);
  } finally {
    for (const server of running) await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
