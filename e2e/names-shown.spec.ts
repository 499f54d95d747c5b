/// <reference lib="dom" />
// Issue 38, item 4's last places: a file keeps the name the person gave it ("Quarterly report – pelican Q3.txt",
// stored as a safe name with underscores) in search results (a hit on its name and on its text), in the preview
// opened from its chip, and in what MCP lists (read_session's attachments and each message's, resources/list's
// title); MCP's `name` and URI stay the stored name an agent reads it back by. At 1280×800 light and 800×600 dark.
// Its own server: the conversations it makes reach no other spec.
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { test, expect, type Page } from '@playwright/test';
import { openApp } from './helpers/chat.js';
import { callJson, mcpClient } from './helpers/mcp.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { startServer, type RunningServer } from './helpers/server.js';

const SIZES = [
  { width: 1280, height: 800, scheme: 'light', word: 'pelican', inText: 'zeppelin' },
  { width: 800, height: 600, scheme: 'dark', word: 'cormorant', inText: 'dirigible' },
] as const;
const given = (word: string) => `Quarterly report – ${word} Q3.txt`;

let server: RunningServer;

test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  await server?.stop();
});

interface Upload {
  filename: string;
  display_name?: string;
}

/** A conversation titled `title` with one message carrying the file `name` (text `text`), made through the API
 *  from the page (it holds the access cookie); returns its id and the upload's answer. */
async function conversation(page: Page, title: string, name: string, text: string): Promise<{ id: string; upload: Upload }> {
  return page.evaluate(
    async ({ title, name, text }) => {
      const post = async (url: string, body: unknown) => {
        const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
        return res.json();
      };
      const { session } = await post('/api/session/new', {});
      const id = session.session_id as string;
      await post('/api/session/rename', { session_id: id, title });
      const form = new FormData();
      form.append('session_id', id);
      form.append('file', new File([text], name, { type: 'text/plain' }));
      const res = await fetch('/api/upload', { method: 'POST', body: form });
      if (!res.ok) throw new Error(`upload: ${res.status} ${await res.text()}`);
      const upload = await res.json();
      await post('/api/session/message', { session_id: id, text: 'The report is attached.', attachments: [upload] });
      return { id, upload };
    },
    { title, name, text },
  );
}

const results = (page: Page) => page.getByTestId('search-result');

/** Ctrl+K, `word` typed; the one result's title and where; asked again until the file's text is indexed (it is
 *  indexed in the background after the upload). */
async function search(page: Page, word: string, title: string, where: string): Promise<void> {
  const field = page.getByTestId('session-search');
  await expect(async () => {
    // Ctrl+K also opens the list where it is a drawer (800×600).
    await page.keyboard.press('Control+K');
    await expect(field).toBeFocused();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(word);
    await expect(results(page)).toHaveCount(1, { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  const hit = results(page).first();
  await expect(hit.getByTestId('search-result-title')).toHaveText(title);
  await expect(hit.getByTestId('search-result-where')).toHaveText(where);
  await expect(hit.locator('mark')).toHaveText([word]);
}

for (const size of SIZES) {
  test(`${size.width}x${size.height} ${size.scheme}: search results and the preview name a file as the person did`, async ({ page }, info) => {
    await page.emulateMedia({ colorScheme: size.scheme });
    await openApp(page, server);
    const name = given(size.word);
    const title = `Numbers at ${size.width}`;
    const { id, upload } = await conversation(page, title, name, `Hangar two keeps the old ${size.inText} and three balloons.`);
    // Stored under a safe name; the person's name kept beside it.
    expect(upload.filename).not.toBe(name);
    expect(upload.display_name).toBe(name);
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.reload();
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');

    // A hit on the file's name: the result says the name as given, and its snippet shows it so.
    await search(page, size.word, title, `file ${name}`);
    await expect(results(page).first().getByTestId('search-result-snippet')).toHaveText(name);
    await page.screenshot({ path: path.join(screenshotDir(info), `names-shown-search-${size.width}x${size.height}.png`) });
    const axe = await new AxeBuilder({ page }).include('[data-testid="search-results"]').analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    // A hit on its text: "in <the name as given>"; Enter opens the conversation.
    await search(page, size.inText, title, `in ${name}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).hash).toBe(`#s=${id}`);

    // The preview opened from the message's chip, by keyboard, is headed by the name as given.
    const open = page.getByTestId('message').getByTestId('attachment-open');
    await open.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('preview-dialog')).toBeVisible();
    await expect(page.getByTestId('preview-title')).toHaveText(name);
    await page.screenshot({ path: path.join(screenshotDir(info), `names-shown-preview-${size.width}x${size.height}.png`) });
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('preview-dialog')).toBeHidden();
  });
}

test('MCP lists a file by the name the person gave it, and reads it back by its stored name', async ({ page }) => {
  await openApp(page, server);
  const name = given('albatross');
  const { id, upload } = await conversation(page, 'Numbers for MCP', name, 'Albatross figures.');
  const client = await mcpClient(server);
  try {
    type Named = { name: string; uri: string; display_name?: string };
    const read = await callJson<{ attachments: (Named & { size: number })[]; messages: { attachments: Named[] }[] }>(client, 'read_session', { session_id: id });
    const uri = `satchel://session/${id}/attachment/${encodeURIComponent(upload.filename)}`;
    expect(read.attachments).toEqual([{ name: upload.filename, uri, display_name: name, size: 18, mime: 'text/plain' }]);
    expect(read.messages.at(-1)!.attachments).toEqual([{ name: upload.filename, uri, display_name: name }]);
    const listed = await client.listResources();
    const resource = listed.resources.find((r) => r.uri === uri);
    expect(resource).toMatchObject({ name: upload.filename, title: name });
    // The stored name still reads it.
    const content = await client.callTool({ name: 'read_attachment', arguments: { session_id: id, name: upload.filename } });
    expect((content.content as { text?: string }[])[0]?.text).toBe('Albatross figures.');
  } finally {
    await client.close();
  }
});
