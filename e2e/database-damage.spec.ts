// A damaged conversation database in the page (issue 33, finding 10): the server (dist/server/cli.js, as
// `npm run serve` runs it) makes its daily backup after start; the file is then damaged; the next start shows
// the server's sentence as a banner, and Settings → Backups → Restore brings the backup back in the same tab.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { serveCli, type Launched } from './helpers/server.js';

/** The first backup is made BACKUP_FIRST_CHECK_MS (15 s) after start; a loaded machine gets some more. */
const BACKUP_DEADLINE_MS = 45_000;

const serve = (stateDir: string, workspace: string) => serveCli(stateDir, workspace, ['--port', '0']);

test('a damaged database: the banner says what happened and what to do, and Restore in Settings brings the backup back', async ({ page }) => {
  test.setTimeout(120_000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-damage-e2e-'));
  const stateDir = path.join(root, 'state');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const running: Launched[] = [];
  try {
    const first = await serve(stateDir, workspace);
    running.push(first);
    const headers = { Authorization: `Bearer ${first.token}`, 'Content-Type': 'application/json' };
    const made = (await (await fetch(`${first.base}/api/session/new`, { method: 'POST', headers, body: '{}' })).json()) as { session: { session_id: string } };
    const renamed = await fetch(`${first.base}/api/session/rename`, { method: 'POST', headers, body: JSON.stringify({ session_id: made.session.session_id, title: 'Kept in the backup' }) });
    expect(renamed.status).toBe(200);
    const backups = path.join(stateDir, 'backups');
    await expect.poll(() => (fs.existsSync(backups) ? fs.readdirSync(backups).filter((n) => n.endsWith('-daily.db')).length : 0), { timeout: BACKUP_DEADLINE_MS }).toBe(1);
    await first.stop();
    running.pop();

    // The file's first bytes overwritten.
    const fd = fs.openSync(path.join(stateDir, 'satchel.db'), 'r+');
    fs.writeSync(fd, Buffer.alloc(100), 0, 100, 0);
    fs.closeSync(fd);

    const second = await serve(stateDir, workspace);
    running.push(second);
    await page.goto(`${second.base}/?token=${second.token}`);
    const banner = page.getByTestId('database-banner');
    await expect(banner).toContainText(`Satchel's conversation database ${path.join(stateDir, 'satchel.db')} is damaged (it does not begin as an SQLite database does`);
    await expect(banner).toContainText('open Settings → Backups and restore the backup of');
    await expect(page.getByTestId('session-item-title')).toHaveCount(0);

    await page.getByTestId('database-banner-restore').click();
    const section = page.getByTestId('backup-settings');
    await expect(section.getByTestId('database-state')).toContainText('is damaged');
    await expect(section.getByTestId('backup-row')).toHaveCount(1);
    page.once('dialog', (d) => void d.accept());
    await section.getByTestId('restore-backup').click();
    // The page loads afresh from the restored database: no banner, the conversation back.
    await expect(page.getByTestId('session-item-title')).toHaveText(['Kept in the backup'], { timeout: 15_000 });
    await expect(page.getByTestId('database-banner')).toHaveCount(0);
    // The damaged file kept aside, as it was.
    const aside = fs.readdirSync(path.join(stateDir, 'set-aside'));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(stateDir, 'set-aside', aside[0]!, 'satchel.db')).subarray(0, 100).equals(Buffer.alloc(100))).toBe(true);
  } finally {
    for (const r of running) await r.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
