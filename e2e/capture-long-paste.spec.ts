/// <reference lib="dom" />
// Issue 38, item 9's long paste, in quick capture too (at its desktop size, 560×420, light and dark): a paste over
// 4,000 characters lands in the box and a line under it offers "Attach as a file" (the text leaves the box and is
// stored as pasted-text-<date>.txt, byte for byte, in the conversation the capture goes to) or "Keep as text";
// keyboard only; Send stays in the window; axe finds nothing serious.
import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { screenshotDir } from './helpers/screenshot-dir.js';

const CAPTURE_VIEWPORT = { width: 560, height: 420 };
const LOG = Array.from({ length: 3000 }, (_, i) => `2026-11-29 08:${String(i % 60).padStart(2, '0')} worker ${i}: ok\n`).join('').slice(0, 68_505);

/** The capture window as the shell opens it: a second page of the same browser, opened by the main window. */
async function openCapture(context: BrowserContext, main: Page): Promise<Page> {
  const [page] = await Promise.all([
    context.waitForEvent('page'),
    main.evaluate(([w, h]) => void window.open('/capture', '_blank', `popup,width=${w},height=${h}`), [CAPTURE_VIEWPORT.width, CAPTURE_VIEWPORT.height] as const),
  ]);
  await page.setViewportSize(CAPTURE_VIEWPORT);
  await expect(page.getByTestId('capture')).toHaveAttribute('data-ready', 'true');
  return page;
}

async function paste(page: Page, text: string): Promise<void> {
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.getByTestId('capture-input').focus();
  await page.keyboard.press('Control+V');
}

/** A conversation of the test's own, titled, shown in the main window (the capture's current one). */
async function current(main: Page, title: string): Promise<string> {
  const id = await main.evaluate(async (t) => {
    const post = (p: string, body: unknown) => fetch(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
    const { session } = await post('/api/session/new', {});
    await post('/api/session/rename', { session_id: session.session_id, title: t });
    return session.session_id as string;
  }, title);
  await main.goto(`${new URL(main.url()).origin}/#s=${id}`);
  await main.reload();
  await expect(main.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  return id;
}

for (const scheme of ['light', 'dark'] as const) {
  test(`quick capture (560×420, ${scheme}): a 68,505-character paste is offered as a file, attached by keyboard`, async ({ app: main, server, context }, info) => {
    expect(LOG).toHaveLength(68_505);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    const id = await current(main, `Server logs ${scheme}`);
    const page = await openCapture(context, main);
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('#destination-current-label')).toHaveText(`Current conversation: Server logs ${scheme}`);
    const box = page.getByTestId('capture-input');
    const offer = page.getByTestId('paste-offer');
    await box.fill('Look at this: ');
    await box.press('End');
    // A short paste is just text.
    await paste(page, 'one line');
    await expect(box).toHaveValue('Look at this: one line');
    await expect(offer).toBeHidden();

    await paste(page, LOG);
    await expect(box).toHaveValue(`Look at this: one line${LOG}`);
    await expect(offer).toBeVisible();
    await expect(offer.getByTestId('paste-offer-text')).toHaveText('Pasted 68,505 characters.');
    // Everything in the small window: the offer, and Send under it.
    await expect(offer).toBeInViewport();
    await expect(page.getByTestId('send')).toBeInViewport();
    expect(await page.evaluate(() => document.scrollingElement!.scrollHeight <= window.innerHeight)).toBe(true);
    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    await page.screenshot({ path: path.join(screenshotDir(info), `capture-long-paste-offer-${scheme}.png`) });

    // Keyboard only: Tab from the box reaches "Attach as a file"; Enter there attaches (it does not send).
    const attach = offer.getByTestId('paste-attach');
    for (let i = 0; i < 4 && !(await attach.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    await expect(attach).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(offer).toBeHidden();
    await expect(box).toHaveValue('Look at this: one line');
    await expect(box).toBeFocused();
    const chip = page.locator('[data-testid="attachment-chip"][data-filename^="pasted-text-"]');
    await expect(chip).toHaveAttribute('data-status', 'done');
    const name = (await chip.getAttribute('data-filename'))!;
    expect(name).toMatch(/^pasted-text-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.txt$/);
    // Stored in the conversation the capture goes to, byte for byte.
    expect(fs.readFileSync(path.join(server.stateDir, 'attachments', id, name), 'utf8')).toBe(LOG);
    await expect(page.getByTestId('send')).toBeInViewport();
    await page.screenshot({ path: path.join(screenshotDir(info), `capture-long-paste-attached-${scheme}.png`) });

    // "Keep as text" keeps a second long paste in the box.
    await paste(page, LOG);
    await expect(offer).toBeVisible();
    await offer.getByTestId('paste-keep').click();
    await expect(offer).toBeHidden();
    await expect(box).toHaveValue(`Look at this: one line${LOG}`);
    // Offered again, then sent as text: sending empties the box and takes the offer along.
    await box.fill('');
    await paste(page, LOG);
    await expect(offer).toBeVisible();
    await box.press('Enter');
    await expect(box).toHaveValue('');
    await expect(offer).toBeHidden();
    await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
    await page.close();
  });
}
