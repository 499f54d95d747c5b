/// <reference lib="dom" />
// What an extraction left out, as the user sees it: a GNU tar with a symlink and an empty folder, dropped on
// the conversation and extracted from its chip, says "1 link, 1 empty folder skipped", and names them on
// expand and on hover.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, newSession, test } from './fixtures.js';

/** A tar made by GNU tar: one file, a symlink to it and an empty folder. */
function gnuTar(): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-e2e-tar-'));
  try {
    fs.writeFileSync(path.join(dir, 'readme.txt'), 'hello from tar\n');
    fs.symlinkSync('readme.txt', path.join(dir, 'latest'));
    fs.mkdirSync(path.join(dir, 'empty'));
    return execFileSync('tar', ['--format=gnu', '-cf', '-', '-C', dir, 'readme.txt', 'latest', 'empty']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('extracting a tar shows what was skipped, with the names on expand and hover', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  const tar = gnuTar();
  await page.evaluate(
    ([b64]) => {
      const bytes = Uint8Array.from(atob(b64 ?? ''), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'project.tar', { type: 'application/x-tar' }));
      const target = document.querySelector('[data-testid="messages"]');
      for (const type of ['dragenter', 'dragover', 'drop']) target?.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    },
    [tar.toString('base64')],
  );
  const chip = page.locator('[data-testid="attachment-chip"][data-filename="project.tar"]');
  await expect(chip).toHaveAttribute('data-status', 'done');
  await chip.getByTestId('attachment-extract').click();
  await expect(chip.getByTestId('extract-result')).toContainText('Extracted 1 file');
  await expect(chip.getByTestId('extract-file')).toHaveText(['readme.txt']);

  const skipped = chip.getByTestId('extract-skipped');
  const summary = chip.getByTestId('extract-skipped-summary');
  await expect(summary).toHaveText('1 link, 1 empty folder skipped');
  // Collapsed: the names are not shown until asked for, but the hover text has them.
  await expect(chip.getByTestId('extract-skipped-item').first()).toBeHidden();
  await expect(skipped).toHaveAttribute('title', 'latest (link)\nempty/ (empty folder)');
  await summary.click();
  await expect(chip.getByTestId('extract-skipped-item')).toHaveText(['latest (link)', 'empty/ (empty folder)']);

  // Nothing but the file was written.
  const dest = path.join(server.stateDir, 'attachments', id, 'project');
  expect(fs.readdirSync(dest)).toEqual(['readme.txt']);
});
