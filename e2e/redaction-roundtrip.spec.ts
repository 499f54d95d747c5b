/// <reference lib="dom" />
// Values the server made travel back verbatim, in the browser: a file whose name looks like a credential
// (`sk-learn-…`) is dropped on the composer, uploaded and sent; the server accepts the attachment object it
// answered (no "Unknown attachment"), and the chip and the sent message show the whole name.
import fs from 'node:fs';
import path from 'node:path';
import { storedJson } from '../server/testing/stored-session.js';
import { expect, newSession, test } from './fixtures.js';

const NAME = 'sk-learn-cheatsheet.pdf';
const BYTES = '%PDF-1.4\n% a cheatsheet\n';

test('a dropped sk-learn-cheatsheet.pdf is sent with its full name', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  await page.evaluate(
    ([name, bytes]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([bytes ?? ''], name ?? '', { type: 'application/pdf' }));
      const target = document.querySelector('[data-testid="messages"]');
      for (const type of ['dragenter', 'dragover', 'drop']) target?.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    },
    [NAME, BYTES],
  );
  const chip = page.locator(`[data-testid="attachment-chip"][data-filename="${NAME}"]`);
  await expect(chip).toHaveAttribute('data-status', 'done');
  await expect(chip).toContainText(NAME);

  const stored = new Promise<{ status: number; body: string }>((resolve) => {
    page.on('response', (res) => {
      if (res.url().includes('/api/session/message')) void res.text().then((body) => resolve({ status: res.status(), body }));
    });
  });
  await page.getByTestId('composer-input').fill('the cheatsheet');
  // No agent is configured: Send keeps the message, with the attachment object the upload answered.
  await page.getByTestId('send').click();
  const answer = await stored;
  expect(answer.status, answer.body).toBe(200);
  const sent = page.getByTestId('message').last();
  await expect(sent.getByTestId('message-attachment')).toHaveCount(1);
  await expect(sent.getByTestId('message-attachment')).toContainText(NAME);
  await expect(sent.getByTestId('message-attachment')).toHaveAttribute('title', NAME);
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
  expect(fs.readFileSync(path.join(server.stateDir, 'attachments', id, NAME), 'utf8')).toBe(BYTES);
  const session = await storedJson(server.stateDir, id);
  expect(session.messages[0].attachments.map((a: { filename: string }) => a.filename)).toEqual([NAME]);
});
