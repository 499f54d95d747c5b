/// <reference lib="dom" />
// Export and import in the browser (issue 24): a conversation with an attachment and two versions of its
// message, exported from the header's Export menu (JSON and Markdown downloads), imported back from the
// sidebar as a new conversation equal to the original (texts, versions, attachment bytes); a file that is no
// export is refused with the server's sentence and adds nothing.
import fs from 'node:fs';
import path from 'node:path';
import yauzl from 'yauzl';
import type { Page } from '@playwright/test';
import { IMPORT_STATUS_MS } from '../renderer/src/export-import.js';
import { expect, newSession, test } from './fixtures.js';

const NOT_AN_EXPORT = 'This file is not a Satchel export. Choose a .json or .zip file made by Export in Satchel.';
const PLAN = Buffer.from('day 1: museum\nday 2: beach\n');

const shownTexts = (page: Page) => page.getByTestId('message-text').allTextContents();

/** The members' names of a zip on disk. */
async function zipNames(file: string): Promise<string[]> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true });
  const names: string[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (e: yauzl.Entry) => {
      names.push(e.fileName);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return names.sort();
}

/** Choose `link` in the header's Export menu; the downloaded file's path. */
async function exportAs(page: Page, link: 'export-md' | 'export-json', dir: string): Promise<{ file: string; name: string }> {
  await page.getByTestId('export-button').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(link).click()]);
  const file = path.join(dir, download.suggestedFilename());
  await download.saveAs(file);
  await expect(page.getByTestId(link)).toBeHidden();
  return { file, name: download.suggestedFilename() };
}

test('export then import: the new conversation equals the original; a file that is no export is refused', async ({ app: page, server }, info) => {
  const id = await newSession(page, server.workspace);
  await page.getByTestId('file-input').setInputFiles({ name: 'plan.txt', mimeType: 'text/plain', buffer: PLAN });
  await expect(page.getByTestId('session-attachments')).toContainText('plan.txt');
  await page.getByTestId('composer-input').fill('Here is the plan');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('message-text')).toHaveText(['Here is the plan']);
  // A second version of that message, kept beside the first (Edit with no agent, through the same API the UI uses).
  const edited = await page.evaluate(async (sessionId) => {
    const res = await fetch('/api/session/message', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ session_id: sessionId, text: 'Here is the better plan', message_index: 0 }) });
    return res.status;
  }, id);
  expect(edited).toBe(200);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('version-text')).toHaveText('2/2');
  await page.getByTestId('rename-session').click();
  await page.getByTestId('rename-input').fill('Holiday');
  await page.getByTestId('rename-input').press('Enter');
  await expect(page.getByTestId('session-title')).toHaveText('Holiday');

  const dir = info.outputPath('downloads');
  fs.mkdirSync(dir, { recursive: true });
  const markdown = await exportAs(page, 'export-md', dir);
  expect(markdown.name).toBe('Holiday.zip');
  expect(await zipNames(markdown.file)).toEqual(['attachments/plan.txt', 'conversation.md']);
  const json = await exportAs(page, 'export-json', dir);
  expect(json.name).toBe('Holiday.satchel.zip');
  expect(await zipNames(json.file)).toEqual(['attachments/plan.txt', 'conversation.json']);

  const before = await page.getByTestId('session-item').count();
  await page.getByTestId('import-input').setInputFiles(json.file);
  // The original is still in the list: the copy's title says so (issue 38, item 5).
  await expect(page.getByTestId('import-status')).toHaveText('Imported “Holiday (imported)”.');
  await expect(page).not.toHaveURL(new RegExp(`#s=${id}$`));
  await expect(page).toHaveURL(/#s=[0-9a-f]{12}$/);
  const copy = new URL(page.url()).hash.replace('#s=', '');
  await expect(page.getByTestId('session-item')).toHaveCount(before + 1);
  await expect(page.getByTestId('session-title')).toHaveText('Holiday (imported)');
  await expect(page.getByTestId('session-workspace')).toHaveText(`Workspace: ${server.workspace}`);
  await expect(page.getByTestId('version-text')).toHaveText('2/2');
  expect(await shownTexts(page)).toEqual(['Here is the better plan']);
  await page.getByTestId('version-previous').click();
  await expect(page.getByTestId('version-text')).toHaveText('1/2');
  expect(await shownTexts(page)).toEqual(['Here is the plan']);
  await expect(page.getByTestId('message').getByTestId('message-attachment')).toHaveText([`plan.txt${PLAN.length} BReady: ${PLAN.length} characters of text`]);
  // The attachment's bytes, in the new conversation's own folder.
  expect(fs.readFileSync(path.join(server.stateDir, 'attachments', copy, 'plan.txt'))).toEqual(PLAN);

  const notes = path.join(dir, 'notes.txt');
  fs.writeFileSync(notes, 'just some notes');
  await page.getByTestId('import-input').setInputFiles(notes);
  await expect(page.getByTestId('import-error')).toHaveText(NOT_AN_EXPORT);
  await expect(page.getByTestId('session-item')).toHaveCount(before + 1);
});

test('"Export all conversations" then Import brings every one back, each with its messages', async ({ app: page, server }, info) => {
  const first = await newSession(page, server.workspace);
  await page.getByTestId('composer-input').fill('The first conversation');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('message-text')).toHaveText(['The first conversation']);
  await newSession(page, server.workspace);
  await page.getByTestId('composer-input').fill('The second conversation');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('message-text')).toHaveText(['The second conversation']);
  const before = await page.getByTestId('session-item').count();
  expect(before).toBeGreaterThanOrEqual(2);

  const dir = info.outputPath('downloads');
  fs.mkdirSync(dir, { recursive: true });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-all').click()]);
  const file = path.join(dir, download.suggestedFilename());
  await download.saveAs(file);
  expect((await zipNames(file)).filter((n) => n.endsWith('/conversation.json'))).toHaveLength(before);

  await page.getByTestId('import-input').setInputFiles(file);
  await expect(page.getByTestId('import-status')).toHaveText(`Imported ${before} conversations.`);
  await expect(page.getByTestId('session-item')).toHaveCount(before * 2);
  await expect(page).not.toHaveURL(new RegExp(`#s=${first}$`));
  // Every conversation is there twice now: the original and its copy.
  for (const text of ['The first conversation', 'The second conversation']) {
    const ids = await page.evaluate(async (wanted) => {
      const list = (await (await fetch('/api/sessions')).json()) as { sessions: Array<{ session_id: string }> };
      const out: string[] = [];
      for (const s of list.sessions) {
        const body = (await (await fetch(`/api/session?session_id=${s.session_id}`)).json()) as { session: { messages: Array<{ content: string }> } };
        if (body.session.messages.some((m) => m.content === wanted)) out.push(s.session_id);
      }
      return out;
    }, text);
    expect(ids).toHaveLength(2);
  }
  // The footer's "Imported N conversations." is read, then goes (it stayed for good: issue 38).
  await expect(page.getByTestId('import-status')).toHaveText('', { timeout: IMPORT_STATUS_MS + 5_000 });
});
