/// <reference lib="dom" />
// Issue 38, item 9: Enter pressed while a file is still uploading queues the message (said under the box) and sends
// it the moment the upload ends, with what the box holds then; "Don’t send" (or Esc) takes it back. Before the fix
// the Enter was dropped and nothing was sent. On the global server (no agent: the message is kept as it is).
import path from 'node:path';
import { expect, newSession, test, throttleUploads } from './fixtures.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { patternBytes } from './helpers/fs.js';

const KiB = 1024;
/** About 3 s at the throttled rate: long enough to press Enter mid-way on a loaded machine. */
const FILE_BYTES = 384 * KiB;
const UPLOAD_BYTES_PER_SECOND = 128 * KiB;

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]) {
  test(`${viewport.width}×${viewport.height}: Enter during an upload queues the message and sends it when the upload ends`, async ({ app: page, server }, info) => {
    await newSession(page, server.workspace);
    await page.setViewportSize(viewport);
    await throttleUploads(page, UPLOAD_BYTES_PER_SECOND);
    const input = page.getByTestId('composer-input');
    await page.getByTestId('file-input').setInputFiles({ name: 'notes.bin', mimeType: 'application/octet-stream', buffer: patternBytes(FILE_BYTES, 5) });
    const chip = page.locator('[data-testid="attachment-chip"][data-filename="notes.bin"]');
    await expect(chip).toHaveAttribute('data-status', 'uploading');
    await input.fill('Here are the notes');
    await input.press('Enter');

    const queued = page.getByTestId('send-queued');
    await expect(queued).toBeVisible();
    await expect(queued).toContainText('Queued: sends when the upload finishes.');
    await page.screenshot({ path: path.join(screenshotDir(info), `send-queued-${viewport.width}x${viewport.height}.png`) });
    await expect(chip).toHaveAttribute('data-status', 'uploading');
    await expect(page.getByTestId('message')).toHaveCount(0);
    // Words typed while it waits go with it: what is sent is what the box holds when the upload ends.
    await input.press('End');
    await input.pressSequentially(' for Monday');

    await expect(chip).toHaveCount(0, { timeout: 30_000 });
    const sent = page.getByTestId('message').last();
    await expect(sent.getByTestId('message-text')).toHaveText('Here are the notes for Monday');
    await expect(sent.getByTestId('message-attachment')).toContainText('notes.bin');
    await expect(queued).toBeHidden();
    await expect(input).toHaveValue('');

    // Taken back: Esc while it waits leaves the text and the file in the box, and nothing is sent.
    await page.getByTestId('file-input').setInputFiles({ name: 'later.bin', mimeType: 'application/octet-stream', buffer: patternBytes(FILE_BYTES, 6) });
    const later = page.locator('[data-testid="attachment-chip"][data-filename="later.bin"]');
    await expect(later).toHaveAttribute('data-status', 'uploading');
    await input.fill('Not yet');
    await input.press('Enter');
    await expect(queued).toBeVisible();
    await input.press('Escape');
    await expect(queued).toBeHidden();
    await expect(later).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
    await expect(page.getByTestId('message')).toHaveCount(1);
    await expect(input).toHaveValue('Not yet');
  });
}
