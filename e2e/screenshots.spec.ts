// The main screens in both themes, walked through (and checked) by every e2e run. The pictures go to the
// test's own output folder, except under `npm run screenshots` (e2e/screenshots.config.ts), which names the
// tracked docs/screenshots/ folder: a test run must leave a clean clone clean.
import fs from 'node:fs';
import path from 'node:path';
import { createSession, expect, newSession, test } from './fixtures.js';
import { buildDocx, buildZip } from './helpers/zip.js';
import { screenshotDir as outDir } from './helpers/screenshot-dir.js';

/** The profile the main screenshots are taken in (shown in the pictures' profile menu). */
const SCREENSHOT_PROFILE = 'personal';

for (const scheme of ['light', 'dark'] as const) {
  test(`screenshots (${scheme})`, async ({ app: page, server }, info) => {
    const OUT = outDir(info);
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    const dir = path.join(server.workspace, `shots-${scheme}`);
    fs.mkdirSync(path.join(dir, 'notes'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'notes', 'todo.md'), '# To do\n\n- [ ] Send the report\n- Book the **flight**\n');
    fs.writeFileSync(path.join(dir, 'budget.csv'), 'item,cost\nhotel,420\n');
    // A profile of these pictures' own (a cookie: this page only). The server is shared by every spec, and the
    // "Travel" folder made below, left in the default profile, sorted above the rows later specs expect on top
    // (sessions-manage's pinned test failed on it). Both themes use it, so the dark run finds the folder made.
    expect((await page.request.post(`${server.base}/api/profile/switch`, { data: { name: SCREENSHOT_PROFILE } })).ok()).toBe(true);
    await page.reload();
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await page.getByTestId('new-session').click();
    const dialog = page.getByTestId('new-session-dialog');
    await dialog.getByTestId('add-folder').click();
    await page.getByTestId('prompt-input').fill(dir);
    await page.getByTestId('prompt-ok').click();
    await expect(dialog.getByTestId('workspace-select')).toHaveValue(dir);
    await page.screenshot({ path: path.join(OUT, `new-session-${scheme}.png`) });
    // Renamed only once the new session is shown: before that, Rename acts on the session the page opened with
    // (the newest one an earlier test left), and under load the creation takes long enough for that to happen.
    const sessionId = await createSession(page, dir);
    // Then once the composer has focus: renaming before that loses the rename field to that focus (the field
    // closed on blur before the title was typed, on a busy machine).
    await expect(page.getByTestId('composer-input')).toBeFocused();
    await page.getByTestId('rename-session').click();
    await page.getByTestId('rename-input').fill('Trip to Lisbon');
    await page.getByTestId('rename-input').press('Enter');
    await expect(page.getByTestId('session-title')).toHaveText('Trip to Lisbon');
    // Folders (issue 38): the conversation in one, as the list shows it (the dark run finds it made).
    const listed = (await (await page.request.get(`${server.base}/api/folders`)).json()) as { folders: Array<{ id: string; name: string }> };
    const travel = listed.folders.find((f) => f.name === 'Travel') ?? ((await (await page.request.post(`${server.base}/api/folders/new`, { data: { name: 'Travel' } })).json()) as { folder: { id: string } }).folder;
    expect((await page.request.post(`${server.base}/api/session/folder`, { data: { session_id: sessionId, folder_id: travel.id } })).ok()).toBe(true);
    await expect(page.locator(`[data-testid="session-folder"] [data-testid="session-row"][data-session-id="${sessionId}"]`)).toBeVisible();

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
    // The picture is of the session this test made and renamed, whatever sessions earlier tests left.
    await expect(page.getByTestId('session-title')).toHaveText('Trip to Lisbon');
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


// The previews by kind, a sent image attachment with its thumbnail, an extracted archive's files.
for (const scheme of ['light', 'dark'] as const) {
  test(`preview screenshots (${scheme})`, async ({ app: page, server }, info) => {
    const OUT = outDir(info);
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    const { buildPng } = await import('./helpers/png.js');
    const photo = buildPng(480, 300, (x, y) => [40 + ((x * 180) / 480) | 0, 90 + ((y * 120) / 300) | 0, 200 - ((x * 80) / 480) | 0]);
    const dir = path.join(server.workspace, `preview-shots-${scheme}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'sunset.png'), photo);
    fs.writeFileSync(path.join(dir, 'firmware.bin'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256)));
    fs.writeFileSync(path.join(dir, 'notes-utf16.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Packing list\n- passport\n- charger\n- rain jacket\n', 'utf16le')]));
    await newSession(page, server.workspace);
    await page.locator(`[data-testid="ws-entry"][data-path="${path.basename(dir)}"] > .tree-row`).click();
    const shot = async (file: string, name: string) => {
      await page.locator(`[data-testid="ws-entry"][data-path="${path.basename(dir)}/${file}"] > .tree-row`).click();
      await expect(page.getByTestId('md-preview')).toHaveAttribute('data-state', 'ready');
      const img = page.getByTestId('preview-image');
      if (await img.count()) await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
      await page.screenshot({ path: path.join(OUT, `${name}-${scheme}.png`) });
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('preview-dialog')).toBeHidden();
    };
    await shot('sunset.png', 'preview-image');
    await shot('notes-utf16.txt', 'preview-text');
    await shot('firmware.bin', 'preview-card');

    await page.getByTestId('file-input').setInputFiles({ name: 'sunset.png', mimeType: 'image/png', buffer: photo });
    await expect(page.locator('[data-testid="attachment-chip"][data-status="done"]')).toHaveCount(1);
    await page.getByTestId('composer-input').fill('Where was this taken?');
    await page.getByTestId('send').click();
    const thumb = page.getByTestId('message').last().getByTestId('attachment-thumb');
    await expect.poll(() => thumb.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(480);
    await page.screenshot({ path: path.join(OUT, `attachment-thumbnail-${scheme}.png`) });

    // An extracted archive's chip opens the list of its files.
    const album = await buildZip({
      'lisbon/day-1/tram-28-through-alfama-at-golden-hour.jpg': 'x'.repeat(182_000),
      'lisbon/day-1/pasteis.jpg': 'x'.repeat(96_000),
      'lisbon/day-2/belem-tower.jpg': 'x'.repeat(141_000),
      'lisbon/notes.txt': 'Buy a 24 h ticket.',
    });
    await page.getByTestId('file-input').setInputFiles({ name: 'lisbon-photos.zip', mimeType: 'application/zip', buffer: album });
    const albumChip = page.locator('[data-testid="attachment-chip"][data-filename="lisbon-photos.zip"]');
    await albumChip.getByTestId('attachment-extract').click();
    await expect(albumChip.getByTestId('extract-summary')).toHaveText('Extracted 4 files');
    await page.getByTestId('send').click();
    await page.getByTestId('message').last().getByTestId('folder-open').click();
    await expect(page.getByTestId('folder-entry')).toHaveCount(4);
    await page.screenshot({ path: path.join(OUT, `preview-folder-${scheme}.png`) });
  });
}
