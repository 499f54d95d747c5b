/// <reference lib="dom" />
// The preview shows what the agent gets (issue 35): a scanned PDF (a page of text rendered by Chromium, wrapped by
// img2pdf, no text layer) opens to the page's OCR text as the agent is sent it, beside the file's card, under the
// words the chip says; the old "This PDF has no text" is gone. A screenshot of the dialog is kept.
import path from 'node:path';
import { hasTool } from '../server/archive/testing/real-tools.js';
import { expect, newSession, test } from './fixtures.js';
import { madeBy } from './helpers/fs.js';
import { screenshotDir } from './helpers/screenshot-dir.js';

const SCAN_TEXT = 'Customer invoice 4471: the quarterly report describes how the team shipped the new archive reader.';

test('a scanned PDF previews as the text OCR recognized on its page, as the agent gets it', async ({ app: page, server, browser }, info) => {
  test.skip(!hasTool('img2pdf', 'img2pdf'), 'img2pdf makes the scanned PDF; install it (img2pdf)');
  // OCR of a page takes seconds of CPU on a shared machine.
  test.setTimeout(180_000);
  const shooter = await browser.newPage({ viewport: { width: 1275, height: 1650 } });
  await shooter.setContent(`<body style="margin:150px;font:25px serif;background:#fff;color:#111"><p>${SCAN_TEXT}</p></body>`);
  const png = await shooter.screenshot();
  await shooter.close();
  const pdf = madeBy({ 'page.png': png }, 'scan.pdf', 'img2pdf', ['page.png', '-o', 'scan.pdf']);

  await newSession(page, server.workspace);
  await page.getByTestId('file-input').setInputFiles({ name: 'scan.pdf', mimeType: 'application/pdf', buffer: pdf });
  const chip = page.locator('[data-testid="attachment-chip"][data-filename="scan.pdf"]');
  await expect(chip).toHaveAttribute('data-status', 'done');
  const chipSays = chip.getByTestId('agent-view-text');
  await expect(chipSays).toHaveText(/^Ready: 1 page, [\d,]+ characters of text, the page recognized by OCR$/, { timeout: 120_000 });

  // Opened from the session's attachments, where a stored file's chip opens its preview.
  await page.getByTestId('session-attachments').getByTestId('attachment-open').filter({ hasText: 'scan.pdf' }).click();
  const dialog = page.getByTestId('preview-dialog');
  await expect(dialog).toBeVisible();
  const agent = dialog.getByTestId('preview-agent');
  await expect(agent).toBeVisible({ timeout: 120_000 });
  await expect(agent).toHaveAttribute('data-state', 'ready');
  // The chip's words head the text, the same summary from the same reader.
  const said = (await chipSays.textContent())!.replace(/^Ready: /, '');
  await expect(agent.getByTestId('preview-agent-summary')).toHaveText(said);
  const text = agent.getByTestId('preview-agent-text');
  await expect(text).toContainText('--- Page 1 (recognized by on-device OCR) ---');
  await expect(text).toContainText('Customer invoice 4471');
  await expect(text).toContainText('shipped the new archive reader');
  await expect(dialog).not.toContainText('This PDF has no text');
  // Beside the file's own card (name, size, Download), not instead of it.
  await expect(dialog.getByTestId('preview-card-name')).toHaveText('scan.pdf');
  const [cardBox, agentBox] = [await dialog.getByTestId('preview-card').boundingBox(), await agent.boundingBox()];
  expect(cardBox && agentBox && (agentBox.x >= cardBox.x + cardBox.width || agentBox.y >= cardBox.y + cardBox.height)).toBe(true);
  await dialog.screenshot({ path: path.join(screenshotDir(info), 'preview-scanned-pdf.png') });
});
