// The main screens in both themes, walked through (and checked) by every e2e run. The pictures go to the
// test's own output folder, except under `npm run screenshots` (e2e/screenshots.config.ts), which names the
// tracked docs/screenshots/ folder: a test run must leave a clean clone clean.
import fs from 'node:fs';
import path from 'node:path';
import type { TestInfo } from '@playwright/test';
import { expect, newSession, test } from './fixtures.js';
import { buildDocx, buildZip } from './helpers/zip.js';
import { SCREENSHOT_DIR_KEY } from './helpers/screenshot-dir.js';

/** Where this test's pictures go: the folder the screenshots config names, else the test's output folder. */
function outDir(info: TestInfo): string {
  const named = info.config.metadata[SCREENSHOT_DIR_KEY];
  const dir = typeof named === 'string' ? path.resolve(named) : info.outputPath('screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

for (const scheme of ['light', 'dark'] as const) {
  test(`screenshots (${scheme})`, async ({ app: page, server }, info) => {
    const OUT = outDir(info);
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    const dir = path.join(server.workspace, `shots-${scheme}`);
    fs.mkdirSync(path.join(dir, 'notes'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'notes', 'todo.md'), '# To do\n\n- [ ] Send the report\n- Book the **flight**\n');
    fs.writeFileSync(path.join(dir, 'budget.csv'), 'item,cost\nhotel,420\n');
    await page.getByTestId('new-session').click();
    const dialog = page.getByTestId('new-session-dialog');
    await dialog.getByTestId('add-folder').click();
    await page.getByTestId('prompt-input').fill(dir);
    await page.getByTestId('prompt-ok').click();
    await expect(dialog.getByTestId('workspace-select')).toHaveValue(dir);
    await page.screenshot({ path: path.join(OUT, `new-session-${scheme}.png`) });
    await dialog.getByTestId('create-session').click();
    await page.getByTestId('rename-session').click();
    await page.getByTestId('rename-input').fill('Trip to Lisbon');
    await page.getByTestId('rename-input').press('Enter');

    await page.getByTestId('file-input').setInputFiles([
      { name: 'itinerary.txt', mimeType: 'text/plain', buffer: Buffer.from('Day 1: arrive') },
      { name: 'photos.zip', mimeType: 'application/zip', buffer: await buildZip({ 'a.jpg': 'x', 'b.jpg': 'y' }) },
    ]);
    await expect(page.locator('[data-testid="attachment-chip"][data-status="done"]')).toHaveCount(2);
    await page.getByTestId('composer-input').fill('Here is the itinerary and the photos.');
    await page.getByTestId('send').click();
    await expect(page.getByTestId('message')).toHaveCount(1);
    await page.getByTestId('file-input').setInputFiles({ name: 'boarding-pass.zip', mimeType: 'application/zip', buffer: await buildZip({ 'pass.txt': 'seat 14A' }) });
    const chip = page.locator('[data-testid="attachment-chip"][data-filename="boarding-pass.zip"]');
    await chip.getByTestId('attachment-extract').click();
    await expect(chip.getByTestId('extract-result')).toBeVisible();
    await page.getByTestId('ws-file-input').setInputFiles({ name: 'report.docx', mimeType: 'application/octet-stream', buffer: await buildDocx('Quarterly Report', 'Revenue grew by twelve percent.') });
    await expect(page.getByTestId('sidecar-open')).toBeVisible();
    await expect(page.locator('[data-testid="ws-entry"][data-path="report.docx.md"]')).toBeVisible();
    await page.locator('[data-testid="ws-entry"][data-path="notes"] > .tree-row').click();
    await expect(page.locator('[data-testid="ws-entry"][data-path="notes/todo.md"]')).toBeVisible();
    await page.getByTestId('composer-input').fill('Can you check the budget?');
    await page.screenshot({ path: path.join(OUT, `main-${scheme}.png`) });

    await page.getByTestId('sidecar-open').click();
    await expect(page.getByTestId('md-preview').locator('h1')).toHaveText('Quarterly Report');
    await page.screenshot({ path: path.join(OUT, `preview-${scheme}.png`) });
    await page.keyboard.press('Escape');
  });

  test(`access screen screenshot (${scheme})`, async ({ browser, server }, info) => {
    const OUT = outDir(info);
    const ctx = await browser.newContext({ colorScheme: scheme, viewport: { width: 1360, height: 860 } });
    try {
      const page = await ctx.newPage();
      await page.goto(`${server.base}/`);
      await expect(page.getByTestId('auth-required')).toBeVisible();
      await page.screenshot({ path: path.join(OUT, `access-${scheme}.png`) });
    } finally {
      await ctx.close();
    }
  });
}

