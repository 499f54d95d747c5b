/// <reference lib="dom" />
// The composer's draft: what was typed and attached comes back after a reload, a chip taken off the draft
// takes its stored file along, and an extracted archive reads right in the composer and in the sent message.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, newSession, test } from './fixtures.js';
import { shownNames } from './helpers/fs.js';
import { buildPng } from './helpers/png.js';
import { buildZip } from './helpers/zip.js';

const draftFile = (stateDir: string, id: string) => path.join(stateDir, 'drafts', `${id}.json`);

test('a reload keeps the typed text and the attachment chips', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  await page.getByTestId('file-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('kept across a reload') });
  await expect(page.locator('[data-testid="attachment-chip"][data-filename="notes.txt"]')).toHaveAttribute('data-status', 'done');
  await page.getByTestId('composer-input').fill('half a thought, not sent');
  // Saved on the server a moment after typing stops.
  await expect.poll(() => fs.existsSync(draftFile(server.stateDir, id)) && fs.readFileSync(draftFile(server.stateDir, id), 'utf8')).toContain('half a thought');

  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('composer-input')).toHaveValue('half a thought, not sent');
  const chip = page.locator('[data-testid="attachment-chip"][data-filename="notes.txt"]');
  await expect(chip).toHaveAttribute('data-status', 'done');
  // The same stored file, not a second upload of it (no notes-1.txt).
  expect(shownNames(path.join(server.stateDir, 'attachments', id))).toEqual(['notes.txt']);

  // Sending empties the draft, on the server too.
  await page.getByTestId('send').click();
  await expect(page.getByTestId('message-text')).toHaveText('half a thought, not sent');
  await expect.poll(() => fs.existsSync(draftFile(server.stateDir, id))).toBe(false);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('composer-input')).toHaveValue('');
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
});

test('removing a chip of an unsent draft deletes its stored file, also after a reload', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  await page.getByTestId('file-input').setInputFiles([
    { name: 'drop-me.txt', mimeType: 'text/plain', buffer: Buffer.from('unwanted') },
    { name: 'keep-me.txt', mimeType: 'text/plain', buffer: Buffer.from('wanted') },
  ]);
  const dropped = page.locator('[data-testid="attachment-chip"][data-filename="drop-me.txt"]');
  await expect(dropped).toHaveAttribute('data-status', 'done');
  await expect(page.locator('[data-testid="attachment-chip"][data-filename="keep-me.txt"]')).toHaveAttribute('data-status', 'done');
  const dir = path.join(server.stateDir, 'attachments', id);
  expect(shownNames(dir)).toEqual(['drop-me.txt', 'keep-me.txt']);

  await dropped.getByTestId('attachment-cancel').click();
  await expect(dropped).toHaveCount(0);
  // Nothing of it left, its hidden summary sidecar included; the kept file's stays beside it.
  await expect.poll(() => fs.readdirSync(dir).sort()).toEqual(['.keep-me.txt.agent-view.json', 'keep-me.txt']);
  await expect(page.getByTestId('session-attachments')).not.toContainText('drop-me.txt');

  // A chip that came back from the stored draft is removed the same way.
  await expect.poll(() => fs.existsSync(draftFile(server.stateDir, id)) && fs.readFileSync(draftFile(server.stateDir, id), 'utf8')).toContain('keep-me.txt');
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  const kept = page.locator('[data-testid="attachment-chip"][data-filename="keep-me.txt"]');
  await expect(kept).toHaveAttribute('data-status', 'done');
  await kept.getByTestId('attachment-cancel').click();
  await expect.poll(() => fs.readdirSync(dir)).toEqual([]);
});

test('an extracted archive lists its files once, relative to its folder, in full; the message says into how many', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  const long = 'quarterly-revenue-by-region-and-product-line-final.csv';
  const zip = await buildZip({ 'report/table.csv': 'a,b\n', [`report/${long}`]: 'x\n' });
  await page.getByTestId('file-input').setInputFiles({ name: 'report.zip', mimeType: 'application/zip', buffer: zip });
  const chip = page.locator('[data-testid="attachment-chip"][data-filename="report.zip"]');
  await expect(chip).toHaveAttribute('data-status', 'done');
  await chip.getByTestId('attachment-extract').click();
  await expect(chip.getByTestId('extract-summary')).toHaveText('Extracted 2 files');
  const files = chip.getByTestId('extract-file');
  await expect(files).toHaveText(['report/table.csv', `report/${long}`]);
  await expect(files.nth(1)).toHaveAttribute('title', `report/${long}`);
  // Wrapped, never cut: nothing of the name is hidden past the list's edge.
  const clipped = await files.nth(1).evaluate((el) => el.scrollWidth > el.clientWidth || el.getBoundingClientRect().right > el.closest('.chip')!.getBoundingClientRect().right + 0.5);
  expect(clipped).toBe(false);
  expect(fs.existsSync(path.join(server.stateDir, 'attachments', id, 'report', 'report', 'table.csv'))).toBe(true);

  await page.getByTestId('send').click();
  const sent = page.getByTestId('message').last().getByTestId('message-attachment');
  await expect(sent).toHaveText(['report.zip', 'report.zip was extracted into 2 files'].map((t) => new RegExp(t.replace('.', '\\.'))));
});

/** A .tar.gz made by GNU tar, as a person would make one. */
function tarGzOf(files: Record<string, string>): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-tar-'));
  try {
    for (const [rel, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, 'src', rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'src', rel), content);
    }
    execFileSync('tar', ['-czf', path.join(dir, 'out.tar.gz'), '-C', path.join(dir, 'src'), ...Object.keys(files)]);
    return fs.readFileSync(path.join(dir, 'out.tar.gz'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('after a reload, a restored image chip shows its thumbnail and a restored archive chip can still be extracted', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  const png = buildPng(48, 30, (x, y) => [x * 5, y * 8, 90]);
  const archive = tarGzOf({ 'minutes/monday.txt': 'Decided: ship it.', 'minutes/tuesday.txt': 'Shipped.' });
  await page.getByTestId('file-input').setInputFiles([
    { name: 'whiteboard.png', mimeType: 'image/png', buffer: png },
    { name: 'minutes.tar.gz', mimeType: 'application/gzip', buffer: archive },
  ]);
  const image = page.locator('[data-testid="attachment-chip"][data-filename="whiteboard.png"]');
  const tarChip = page.locator('[data-testid="attachment-chip"][data-filename="minutes.tar.gz"]');
  await expect(image).toHaveAttribute('data-status', 'done');
  await expect(tarChip).toHaveAttribute('data-status', 'done');
  await expect.poll(() => fs.existsSync(draftFile(server.stateDir, id)) && fs.readFileSync(draftFile(server.stateDir, id), 'utf8')).toContain('minutes.tar.gz');

  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  // The stored image, decoded at its own size (not the generic icon).
  const thumb = image.getByTestId('attachment-thumb');
  await expect.poll(() => thumb.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
  expect(await thumb.evaluate((el: HTMLImageElement) => [el.naturalWidth, el.naturalHeight])).toEqual([48, 30]);

  // The archive's bytes are no longer in the page: the server extracts the stored file.
  await tarChip.getByTestId('attachment-extract').click();
  await expect(tarChip.getByTestId('extract-summary')).toHaveText('Extracted 2 files');
  await expect(tarChip.getByTestId('extract-file')).toHaveText(['minutes/monday.txt', 'minutes/tuesday.txt']);
  const dir = path.join(server.stateDir, 'attachments', id);
  expect(fs.readFileSync(path.join(dir, 'minutes.tar', 'minutes', 'monday.txt'), 'utf8')).toBe('Decided: ship it.');
  // Nothing was uploaded again (no minutes-1.tar.gz); the folder is named as an upload's extraction would be.
  expect(shownNames(dir)).toEqual(['minutes.tar', 'minutes.tar.gz', 'whiteboard.png']);

  // The extraction is part of the draft: after another reload it is there, with nothing left to extract.
  await expect.poll(() => fs.readFileSync(draftFile(server.stateDir, id), 'utf8')).toContain('"extracted":2');
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(tarChip.getByTestId('extract-summary')).toHaveText('Extracted 2 files');
  await expect(tarChip.getByTestId('attachment-extract')).toHaveCount(0);

  // Sent, the message says what it was extracted into, and its chip opens the files.
  await page.getByTestId('send').click();
  const folder = page.getByTestId('message').last().getByTestId('folder-open');
  await expect(folder).toHaveText('minutes.tar.gz was extracted into 2 files');
  await folder.click();
  await expect(page.getByTestId('folder-entry-name')).toHaveText(['minutes/monday.txt', 'minutes/tuesday.txt']);
});

test('Edit brings back a sent image with its thumbnail, an archive that can still be extracted, and an extracted one with its files', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  const png = buildPng(48, 30, (x, y) => [x * 5, y * 8, 90]);
  const archive = tarGzOf({ 'minutes/monday.txt': 'Decided: ship it.', 'minutes/tuesday.txt': 'Shipped.' });
  const zip = await buildZip({ 'report/table.csv': 'a,b\n', 'report/notes.txt': 'x\n' });
  await page.getByTestId('file-input').setInputFiles([
    { name: 'whiteboard.png', mimeType: 'image/png', buffer: png },
    { name: 'minutes.tar.gz', mimeType: 'application/gzip', buffer: archive },
    { name: 'report.zip', mimeType: 'application/zip', buffer: zip },
  ]);
  const chip = (name: string) => page.locator(`[data-testid="attachment-chip"][data-filename="${name}"]`);
  for (const name of ['whiteboard.png', 'minutes.tar.gz', 'report.zip']) await expect(chip(name)).toHaveAttribute('data-status', 'done');
  await chip('report.zip').getByTestId('attachment-extract').click();
  await expect(chip('report.zip').getByTestId('extract-summary')).toHaveText('Extracted 2 files');
  await page.getByTestId('composer-input').fill('the meeting');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('message-text').last()).toHaveText('the meeting');
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
  const dir = path.join(server.stateDir, 'attachments', id);
  expect(shownNames(dir)).toEqual(['minutes.tar.gz', 'report', 'report.zip', 'whiteboard.png']);

  await page.getByTestId('edit-message').last().click();
  await expect(page.getByTestId('composer-input')).toHaveValue('the meeting');
  // One chip per file sent: the extraction shows on its archive's chip, not as a chip of its own.
  await expect(page.getByTestId('attachment-chip')).toHaveCount(3);
  const thumb = chip('whiteboard.png').getByTestId('attachment-thumb');
  await expect.poll(() => thumb.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
  expect(await thumb.evaluate((el: HTMLImageElement) => [el.naturalWidth, el.naturalHeight])).toEqual([48, 30]);
  await expect(chip('report.zip').getByTestId('extract-summary')).toHaveText('Extracted 2 files');
  await expect(chip('report.zip').getByTestId('extract-file')).toHaveText(['report/notes.txt', 'report/table.csv']);
  await expect(chip('report.zip').getByTestId('attachment-extract')).toHaveCount(0);

  // The archive's bytes are not in the page: the server extracts the stored file, nothing is uploaded again.
  await chip('minutes.tar.gz').getByTestId('attachment-extract').click();
  await expect(chip('minutes.tar.gz').getByTestId('extract-summary')).toHaveText('Extracted 2 files');
  await expect(chip('minutes.tar.gz').getByTestId('extract-file')).toHaveText(['minutes/monday.txt', 'minutes/tuesday.txt']);
  expect(fs.readFileSync(path.join(dir, 'minutes.tar', 'minutes', 'monday.txt'), 'utf8')).toBe('Decided: ship it.');
  expect(shownNames(dir)).toEqual(['minutes.tar', 'minutes.tar.gz', 'report', 'report.zip', 'whiteboard.png']);

  // The sent message still refers to these files: taking a chip off the composer leaves them on disk.
  await chip('whiteboard.png').getByTestId('attachment-cancel').click();
  await chip('report.zip').getByTestId('attachment-cancel').click();
  await expect(page.getByTestId('attachment-chip')).toHaveCount(1);
  await page.getByTestId('composer-input').fill('the meeting, extracted');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('message-text').last()).toHaveText('the meeting, extracted');
  expect(shownNames(dir)).toEqual(['minutes.tar', 'minutes.tar.gz', 'report', 'report.zip', 'whiteboard.png']);
  // The edit is a new version (2/2); the first one's images still show from the stored bytes.
  await expect(page.getByTestId('version-text')).toHaveText('2/2');
  await page.getByTestId('version-previous').click();
  await expect(page.getByTestId('message-text')).toHaveText(['the meeting']);
  const firstThumb = page.getByTestId('message').first().getByTestId('attachment-thumb');
  await expect.poll(() => firstThumb.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
  await page.getByTestId('version-next').click();
  await expect(page.getByTestId('message').last().getByTestId('folder-open')).toHaveText('minutes.tar.gz was extracted into 2 files');
});
