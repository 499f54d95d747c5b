/// <reference lib="dom" />
// A long paste is offered as an attachment (issue 38 item 9: "a 68,505-character paste sits in a 2-line box and is
// not offered as an attachment"): the text lands in the box as always, a line under it offers "Attach as a file"
// (the text leaves the box and is uploaded as pasted-text-<date>.txt, byte for byte) or "Keep as text".
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, newSession, test } from './fixtures.js';
import { screenshotDir } from './helpers/screenshot-dir.js';

const LOG = Array.from({ length: 3000 }, (_, i) => `2026-11-29 08:${String(i % 60).padStart(2, '0')} worker ${i}: ok\n`).join('').slice(0, 68_505);

async function paste(page: Page, text: string): Promise<void> {
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.getByTestId('composer-input').focus();
  await page.keyboard.press('Control+V');
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]) {
  test(`a 68,505-character paste is offered as a file, attached by keyboard (${size.width}×${size.height})`, async ({ app: page, server, context }, info) => {
    expect(LOG).toHaveLength(68_505);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    // The sidebar (New session) is a drawer at 800 px: the session is made first, then the window sized.
    const id = await newSession(page, server.workspace);
    await page.setViewportSize(size);
    const box = page.getByTestId('composer-input');
    await box.fill('Please read this log: ');
    await box.press('End');
    // A short paste is just text.
    await paste(page, 'a short line');
    await expect(box).toHaveValue('Please read this log: a short line');
    await expect(page.getByTestId('paste-offer')).toBeHidden();

    await paste(page, LOG);
    await expect(box).toHaveValue(`Please read this log: a short line${LOG}`);
    const offer = page.getByTestId('paste-offer');
    await expect(offer).toBeVisible();
    await expect(offer.getByTestId('paste-offer-text')).toHaveText('Pasted 68,505 characters.');
    // Send stays in the window with the offer under the box.
    await expect(page.getByTestId('send')).toBeInViewport();
    await expect(offer).toBeInViewport();
    await page.screenshot({ path: path.join(screenshotDir(info), `long-paste-offer-${size.width}x${size.height}.png`) });

    // Keyboard only: Tab from the box reaches "Attach as a file".
    const attach = offer.getByTestId('paste-attach');
    for (let i = 0; i < 6 && !(await attach.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    await expect(attach).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(offer).toBeHidden();
    await expect(box).toHaveValue('Please read this log: a short line');
    const chip = page.locator('[data-testid="attachment-chip"][data-filename^="pasted-text-"]');
    await expect(chip).toHaveAttribute('data-status', 'done');
    const name = (await chip.getAttribute('data-filename'))!;
    expect(name).toMatch(/^pasted-text-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.txt$/);
    expect(fs.readFileSync(path.join(server.stateDir, 'attachments', id, name), 'utf8')).toBe(LOG);
  });
}

test('"Keep as text" keeps a long Markdown paste in the box, and the offer goes when the text does', async ({ app: page, server, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
  await newSession(page, server.workspace);
  const notes = `# Notes\n\n${'- a point worth keeping\n'.repeat(300)}`;
  const box = page.getByTestId('composer-input');
  await paste(page, notes);
  const offer = page.getByTestId('paste-offer');
  await expect(offer.getByTestId('paste-offer-text')).toHaveText(`Pasted ${notes.length.toLocaleString('en-US')} characters.`);
  await offer.getByTestId('paste-keep').click();
  await expect(offer).toBeHidden();
  await expect(box).toHaveValue(notes);
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
  // Offered again, then the box emptied by hand: nothing left to attach, no offer.
  await box.fill('');
  await paste(page, notes);
  await expect(offer).toBeVisible();
  await box.fill('changed my mind');
  await expect(offer).toBeHidden();
});
