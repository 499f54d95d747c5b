/// <reference lib="dom" />
// "Show" on a masked value (issue 38 item 10): an agent's example .env shows `POSTGRES_PASSWORD=***`; the person at
// the keyboard shows the original in place, copies it, hides it again; the default stays masked (a reload, Copy
// of the whole reply), and a page on another origin cannot ask for it.
import AxeBuilder from '@axe-core/playwright';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { screenshotDir } from './helpers/screenshot-dir.js';

const PASSWORD = 's3cr3t-Pg-pass';
const GH = 'ghp_Q7abcdefghijklmnopqrstuvwxyzVbNm';
const REPLY = `Here is an example \`.env\`:\n\n\`\`\`bash\nPOSTGRES_PASSWORD=${PASSWORD}\nGITHUB_TOKEN=${GH}\n\`\`\`\n\nRestart the service after saving it.`;
const ASKED = 'My database says PASSWORD=hunter2 is wrong';

async function importConversation(page: Page): Promise<string> {
  const exported = {
    satchel_export: 1,
    title: 'Masked values',
    created_at: '2026-11-29T08:00:00Z',
    updated_at: '2026-11-29T08:00:00Z',
    messages: [
      { role: 'user', content: ASKED, timestamp: 1_764_403_200, attachments: [] },
      { role: 'assistant', content: REPLY, timestamp: 1_764_403_210 },
    ],
    attachments: [],
  };
  return await page.evaluate(async (json) => {
    const form = new FormData();
    form.append('file', new Blob([json], { type: 'application/json' }), 'masked.json');
    const res = await fetch('/api/session/import', { method: 'POST', body: form });
    if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { session: { session_id: string } }).session.session_id;
  }, JSON.stringify(exported));
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]) {
  test(`a masked value is shown, copied and hidden again, in this view only (${size.width}×${size.height})`, async ({ app: page, server, context }, info) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    await page.setViewportSize(size);
    const id = await importConversation(page);
    await page.goto(`${server.base}/#s=${id}`);
    const reply = page.locator('[data-message-index="1"]');
    const code = reply.locator('pre code');
    await expect(code).toContainText('POSTGRES_PASSWORD=***');
    // Coloured code replaces the block's text nodes: the values are marked on the new ones.
    await expect(code).toHaveAttribute('data-highlighted', /.+/);
    const values = reply.getByTestId('masked-value');
    await expect(values).toHaveCount(2);
    await expect(values.getByTestId('masked-text')).toHaveText(['***', 'ghp_Q7...VbNm']);
    // The person's own message too.
    const asked = page.locator('[data-message-index="0"]');
    await expect(asked.getByTestId('masked-text')).toHaveText(['***']);
    // Nothing of the originals is in the page before Show.
    expect(await page.content()).not.toContain(PASSWORD);

    // Keyboard only: focus Show and press Enter.
    const answers: { status: number; cache: string | undefined }[] = [];
    page.on('response', (res) => {
      if (res.url().endsWith('/api/session/reveal')) answers.push({ status: res.status(), cache: res.headers()['cache-control'] });
    });
    const show = values.first().getByTestId('reveal-masked');
    await show.focus();
    await page.keyboard.press('Enter');
    await expect(values.first().getByTestId('masked-text')).toHaveText(PASSWORD);
    await expect(show).toHaveText('Hide');
    await expect(show).toHaveAttribute('aria-pressed', 'true');
    expect(answers).toEqual([{ status: 200, cache: 'no-store' }]);
    await expect(values.nth(1).getByTestId('masked-text')).toHaveText('ghp_Q7...VbNm');
    await page.screenshot({ path: path.join(screenshotDir(info), `masked-value-shown-${size.width}x${size.height}.png`) });
    // Accessible in both states, light and dark.
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const axe = await new AxeBuilder({ page }).include('[data-testid="messages"]').analyze();
      expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    }
    await page.screenshot({ path: path.join(screenshotDir(info), `masked-value-shown-dark-${size.width}x${size.height}.png`) });
    await page.emulateMedia({ colorScheme: 'light' });

    // Its own Copy gives the original; the reply's Copy keeps the masks.
    await page.keyboard.press('Tab');
    await expect(values.first().getByTestId('copy-revealed')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(PASSWORD);
    await reply.getByTestId('copy-message').first().click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(REPLY.replace(PASSWORD, '***').replace(GH, 'ghp_Q7...VbNm'));

    // Hide: the mask again, the copy control gone.
    await show.click();
    await expect(values.first().getByTestId('masked-text')).toHaveText('***');
    await expect(values.first().getByTestId('copy-revealed')).toHaveCount(0);

    // For this view only: shown again, then a reload shows the mask.
    await show.click();
    await expect(values.first().getByTestId('masked-text')).toHaveText(PASSWORD);
    await page.reload();
    await expect(page.locator('[data-message-index="1"]').getByTestId('masked-text').first()).toHaveText('***');
    expect(await page.content()).not.toContain(PASSWORD);
  });
}

test('a page on another origin of this machine cannot reveal a masked value, even with the cookie', async ({ app: page, server, context }) => {
  const id = await importConversation(page);
  const satchel = new URL(server.base);
  const body = JSON.stringify({ session_id: id, message_index: 1, start: REPLY.replace(PASSWORD, '***').indexOf('***') });
  // Same host, another port: the same site, so the SameSite=Strict access cookie goes along with its requests.
  const other = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>another local page</title>');
  });
  await new Promise<void>((resolve) => other.listen(0, satchel.hostname, resolve));
  try {
    const tab = await context.newPage();
    const seen: number[] = [];
    tab.on('response', (res) => {
      if (res.url().includes('/api/session/reveal')) seen.push(res.status());
    });
    await tab.goto(`http://${satchel.hostname}:${(other.address() as AddressInfo).port}/`);
    const outcome = await tab.evaluate(
      async ([url, json]) => {
        const tries: string[] = [];
        // A JSON request needs a preflight the server never grants; a form-like one is sent but refused.
        for (const init of [
          { headers: { 'Content-Type': 'application/json' } },
          { headers: { 'Content-Type': 'text/plain' }, mode: 'no-cors' as RequestMode },
        ]) {
          try {
            const res = await fetch(url!, { method: 'POST', credentials: 'include', body: json, ...init });
            tries.push(res.type === 'opaque' ? 'opaque' : `${res.status} ${await res.text()}`);
          } catch (err) {
            tries.push(`refused: ${(err as Error).name}`);
          }
        }
        return tries;
      },
      [`${server.base}/api/session/reveal`, body],
    );
    expect(outcome).toEqual(['refused: TypeError', 'opaque']);
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    for (const status of seen) expect(status).not.toBe(200);
    await tab.close();
  } finally {
    await new Promise((resolve) => other.close(resolve));
  }
});
