/// <reference lib="dom" />
// Files preview by kind. In the workspace tree a PNG shows as an image, a .docx as its Markdown, a
// .txt as text with its encoding (an Excel CSV in Windows-1252 too), an SVG as an image, a binary file as a card with Download; a sent image
// attachment keeps its thumbnail in the message (across a reload) and its chip opens the same preview.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, newSession, test } from './fixtures.js';
import { buildPng } from './helpers/png.js';
import { buildDocx } from './helpers/zip.js';

const png = buildPng(64, 40, (x, y) => [x * 4, y * 6, 160]);

function freshDir(root: string, name: string): string {
  const dir = path.join(root, `${name}-${Date.now().toString(36)}`);
  fs.mkdirSync(dir);
  return dir;
}

/** The image really rendered: decoded, with its own size (a refused or mistyped response has none). */
async function naturalSize(img: Locator): Promise<[number, number]> {
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
  return img.evaluate((el: HTMLImageElement) => [el.naturalWidth, el.naturalHeight] as [number, number]);
}

async function openTreeFile(page: Page, rel: string): Promise<Locator> {
  await page.locator(`[data-testid="ws-entry"][data-path="${rel}"] > .tree-row`).click();
  const dialog = page.getByTestId('preview-dialog');
  await expect(dialog).toBeVisible();
  await expect(page.getByTestId('md-preview')).toHaveAttribute('data-state', 'ready');
  return dialog;
}

async function closePreview(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('preview-dialog')).toBeHidden();
}

test('workspace files preview by kind: image, Office Markdown, text with its encoding, SVG, binary card', async ({ app: page, server }) => {
  const dir = freshDir(server.workspace, 'previews');
  fs.writeFileSync(path.join(dir, 'chart.png'), png);
  fs.writeFileSync(path.join(dir, 'brief.docx'), await buildDocx('Quarterly brief', 'Revenue grew by twelve percent.'));
  fs.writeFileSync(path.join(dir, 'notes.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Notes in UTF-16 ✓', 'utf16le')]));
  // As Excel on Windows saves a CSV: Windows-1252, no mark (€ is 0x80, the curly quotes 0x93/0x94).
  fs.writeFileSync(path.join(dir, 'prices.csv'), Buffer.from('Artikel;Preis\r\nCaf\xe9 cr\xe8me;3,50 \x80 \x93tr\xe8s bon\x94\r\n', 'latin1'));
  fs.writeFileSync(path.join(dir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20"><rect width="30" height="20" fill="teal"/></svg>');
  fs.writeFileSync(path.join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 3, 254, 255, 0, 7]));
  await newSession(page, server.workspace);
  const rel = path.basename(dir);
  await page.locator(`[data-testid="ws-entry"][data-path="${rel}"] > .tree-row`).click();

  let dialog = await openTreeFile(page, `${rel}/chart.png`);
  expect(await naturalSize(dialog.getByTestId('preview-image'))).toEqual([64, 40]);
  await expect(page.getByTestId('preview-meta')).toHaveText(/^Image · /);
  await closePreview(page);

  dialog = await openTreeFile(page, `${rel}/brief.docx`);
  await expect(dialog.getByTestId('preview-markdown').getByRole('heading', { name: 'Quarterly brief' })).toBeVisible();
  await expect(dialog.getByTestId('preview-markdown')).toContainText('Revenue grew by twelve percent.');
  await expect(dialog.getByText('PK')).toHaveCount(0);
  await closePreview(page);

  dialog = await openTreeFile(page, `${rel}/notes.txt`);
  await expect(dialog.getByTestId('preview-text')).toHaveText('Notes in UTF-16 ✓');
  await expect(page.getByTestId('preview-meta')).toContainText('UTF-16 LE');
  await closePreview(page);

  dialog = await openTreeFile(page, `${rel}/prices.csv`);
  await expect(dialog.getByTestId('preview-text')).toHaveText('Artikel;Preis\nCafé crème;3,50 € “très bon”\n');
  await expect(page.getByTestId('preview-meta')).toContainText('Windows-1252');
  await closePreview(page);

  dialog = await openTreeFile(page, `${rel}/logo.svg`);
  expect(await naturalSize(dialog.getByTestId('preview-image'))).toEqual([30, 20]);
  await expect(dialog.locator('svg rect')).toHaveCount(0); // an image, never inline markup
  await closePreview(page);

  dialog = await openTreeFile(page, `${rel}/blob.bin`);
  const card = dialog.getByTestId('preview-card');
  await expect(card.getByTestId('preview-card-name')).toHaveText('blob.bin');
  await expect(card).toContainText('8 B');
  await expect(card.getByTestId('preview-card-type')).toHaveText('application/octet-stream');
  const download = page.waitForEvent('download');
  await card.getByTestId('preview-download').click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('blob.bin');
  expect(fs.readFileSync(await file.path()).equals(fs.readFileSync(path.join(dir, 'blob.bin')))).toBe(true);
  await closePreview(page);
});

test('a sent image attachment keeps its thumbnail across a reload, and its chip opens the preview', async ({ app: page, server }) => {
  await newSession(page, server.workspace);
  await page.getByTestId('file-input').setInputFiles({ name: 'screenshot.png', mimeType: 'image/png', buffer: png });
  await expect(page.locator('[data-testid="attachment-chip"][data-filename="screenshot.png"]')).toHaveAttribute('data-status', 'done');
  await page.getByTestId('composer-input').fill('What is on this screen?');
  await page.getByTestId('send').click();

  const chip = () => page.getByTestId('message').filter({ hasText: 'What is on this screen?' }).getByTestId('message-attachment');
  expect(await naturalSize(chip().getByTestId('attachment-thumb'))).toEqual([64, 40]);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  expect(await naturalSize(chip().getByTestId('attachment-thumb'))).toEqual([64, 40]);
  expect(await naturalSize(page.getByTestId('session-attachments').getByTestId('attachment-thumb'))).toEqual([64, 40]);

  await chip().getByTestId('attachment-open').click();
  const dialog = page.getByTestId('preview-dialog');
  await expect(page.getByTestId('preview-title')).toHaveText('screenshot.png');
  expect(await naturalSize(dialog.getByTestId('preview-image'))).toEqual([64, 40]);
  await closePreview(page);

  await page.getByTestId('session-attachments').getByTestId('attachment-open').click();
  expect(await naturalSize(dialog.getByTestId('preview-image'))).toEqual([64, 40]);
  await closePreview(page);
});

/** A zip made by zip(1) from `files` (relative paths), as a person would make one. */
function zipOf(files: Record<string, string | Buffer>): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-zip-'));
  try {
    for (const [rel, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, 'src', rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'src', rel), content);
    }
    execFileSync('zip', ['-qr', path.join(dir, 'out.zip'), '.'], { cwd: path.join(dir, 'src') });
    return fs.readFileSync(path.join(dir, 'out.zip'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('an extracted archive’s chip opens its files; each opens its own preview, Escape gives focus back to the chip', async ({ app: page, server }) => {
  const long = 'quarterly-revenue-by-region-and-product-line-summary-final.txt';
  const logs = Object.fromEntries(Array.from({ length: 203 }, (_, i) => [`z-logs/day-${String(i).padStart(3, '0')}.log`, `entry ${i}`]));
  const zip = zipOf({ 'report/table.csv': 'region,total\nnorth,12\n', [`report/notes/${long}`]: 'Revenue grew.', 'report/chart.png': png, ...logs });
  await newSession(page, server.workspace);
  await page.getByTestId('file-input').setInputFiles({ name: 'report.zip', mimeType: 'application/zip', buffer: zip });
  const chip = page.locator('[data-testid="attachment-chip"][data-filename="report.zip"]');
  await expect(chip).toHaveAttribute('data-status', 'done');
  await chip.getByTestId('attachment-extract').click();
  await expect(chip.getByTestId('extract-summary')).toHaveText('Extracted 206 files');
  await page.getByTestId('composer-input').fill('The report, unpacked');
  await page.getByTestId('send').click();

  const opener = page.getByTestId('message').filter({ hasText: 'The report, unpacked' }).getByTestId('folder-open');
  await expect(opener).toHaveText('report.zip was extracted into 206 files');
  // By keyboard: the chip is a button.
  await opener.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('preview-dialog');
  await expect(dialog).toBeVisible();
  await expect(page.getByTestId('preview-title')).toHaveText('report.zip');
  const entries = dialog.getByTestId('folder-entry');
  await expect(entries).toHaveCount(200);
  // Relative to the extraction folder, each once, in full.
  await expect(entries.getByTestId('folder-entry-name').first()).toHaveText('report/chart.png');
  await expect(entries.getByTestId('folder-entry-name').nth(1)).toHaveText(`report/notes/${long}`);
  await expect(entries.nth(1)).toHaveAttribute('title', `report/notes/${long}`);
  await expect(entries.getByTestId('folder-entry-name').nth(2)).toHaveText('report/table.csv');
  await expect(entries.nth(2)).toContainText('22 B');
  await expect(dialog.getByTestId('folder-count')).toHaveText('206 files');
  await expect(dialog.getByTestId('folder-more')).toHaveText('and 6 more');
  const name = entries.getByTestId('folder-entry-name').nth(1);
  expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

  // An entry opens its file's own preview, with the way back to the list.
  await entries.nth(2).click();
  await expect(page.getByTestId('preview-title')).toHaveText('report/table.csv');
  await expect(page.getByTestId('md-preview')).toHaveAttribute('data-state', 'ready');
  await expect(dialog.getByTestId('preview-text')).toHaveText('region,total\nnorth,12\n');
  await expect(dialog.getByTestId('preview-back')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('preview-title')).toHaveText('report.zip');
  await expect(entries.nth(2)).toBeFocused();
  await entries.first().click();
  expect(await naturalSize(dialog.getByTestId('preview-image'))).toEqual([64, 40]);

  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(opener).toBeFocused();
  // The close button too.
  await page.keyboard.press('Enter');
  await expect(dialog.getByTestId('folder-entry')).toHaveCount(200);
  await dialog.getByTestId('preview-close').click();
  await expect(dialog).toBeHidden();
  await expect(opener).toBeFocused();
  // Closed and opened again within one task (a busy machine, Escape then Enter): the close event, queued, comes
  // after the new opening and must leave it alone (it once dropped the list's answer: a dialog stuck loading).
  await opener.evaluate((el) => {
    (document.getElementById('preview-dialog') as HTMLDialogElement).showModal();
    (document.getElementById('preview-dialog') as HTMLDialogElement).close();
    (el as HTMLElement).click();
  });
  await expect(dialog.getByTestId('folder-entry')).toHaveCount(200);
});
