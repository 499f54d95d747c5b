/// <reference lib="dom" />
// Composer attachments: byte-accurate progress, cancel without leftovers, drops, archive extraction.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, newSession, progressSeen, recordProgress, test, throttleUploads } from './fixtures.js';
import { eventually, listFiles, patternBytes } from './helpers/fs.js';
import { buildZip } from './helpers/zip.js';

const MiB = 1024 * 1024;

test('an attachment uploads with visible byte progress and lands on disk byte for byte', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  const bytes = patternBytes(6 * MiB, 7);
  await throttleUploads(page, 4 * MiB);
  await recordProgress(page);
  await page.getByTestId('file-input').setInputFiles({ name: 'data.bin', mimeType: 'application/octet-stream', buffer: bytes });

  const chip = page.locator('[data-testid="attachment-chip"][data-filename="data.bin"]');
  await expect(chip).toHaveAttribute('data-status', 'uploading');
  await expect(chip.getByRole('progressbar')).toBeVisible();
  await expect(chip).toHaveAttribute('data-status', 'done', { timeout: 20_000 });
  await expect(chip.getByTestId('attachment-bytes')).toHaveText('6.0 MB / 6.0 MB');
  await expect(chip.getByTestId('attachment-bytes')).toHaveAttribute('data-loaded', String(6 * MiB));

  const seen = await progressSeen(page);
  const partial = seen.filter((t) => /^\d+\.\d MB \/ 6\.0 MB$/.test(t) && t !== '0.0 MB / 6.0 MB' && t !== '6.0 MB / 6.0 MB');
  expect(partial.length, `intermediate progress texts seen: ${seen.join(' | ')}`).toBeGreaterThan(0);

  const stored = path.join(server.stateDir, 'attachments', id, 'data.bin');
  expect(fs.readFileSync(stored).equals(bytes)).toBe(true);

  await page.getByTestId('composer-input').fill('Here is the data');
  await page.getByTestId('send').click();
  const msg = page.getByTestId('message').last();
  await expect(msg.getByTestId('message-text')).toHaveText('Here is the data');
  await expect(msg.getByTestId('message-attachment')).toContainText('data.bin');
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
});

test('cancelling a large upload mid-way leaves no file and no staging file', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-big-'));
  const big = path.join(dir, 'big.bin');
  fs.writeFileSync(big, patternBytes(60 * MiB, 3));
  try {
    // Anything in the state folder that is new after the cancel is a leftover.
    const existing = new Set(listFiles(server.stateDir).map((f) => f.path));
    await throttleUploads(page, 8 * MiB);
    await page.getByTestId('file-input').setInputFiles(big);
    const chip = page.locator('[data-testid="attachment-chip"][data-filename="big.bin"]');
    const counter = chip.getByTestId('attachment-bytes');
    await expect(chip).toHaveAttribute('data-status', 'uploading');
    await expect.poll(async () => Number(await counter.getAttribute('data-loaded')), { timeout: 20_000 }).toBeGreaterThan(5 * MiB);
    const loadedAtCancel = Number(await counter.getAttribute('data-loaded'));
    expect(loadedAtCancel).toBeLessThan(60 * MiB);
    await chip.getByRole('button', { name: 'Cancel upload of big.bin' }).click();
    await expect(chip).toHaveCount(0);

    const leftovers = () => listFiles(server.stateDir).filter((f) => !existing.has(f.path));
    expect(await eventually(() => leftovers().length === 0, 10_000), JSON.stringify(leftovers())).toBe(true);
    expect(listFiles(path.join(server.stateDir, 'staging'))).toEqual([]);
    // The server is still healthy and accepts the next upload.
    await page.getByTestId('file-input').setInputFiles({ name: 'after.txt', mimeType: 'text/plain', buffer: Buffer.from('still fine') });
    await expect(page.locator('[data-testid="attachment-chip"][data-filename="after.txt"]')).toHaveAttribute('data-status', 'done');
    expect(fs.readFileSync(path.join(server.stateDir, 'attachments', id, 'after.txt'), 'utf8')).toBe('still fine');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a file over the server cap is refused before upload with a clear message', async ({ app: page, server }) => {
  await newSession(page, server.workspace);
  const cap = await page.evaluate(async () => ((await (await fetch('/api/config')).json()) as { max_upload_bytes: number }).max_upload_bytes);
  // A sparse file: the size check must refuse it without reading its bytes.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-huge-'));
  const huge = path.join(dir, 'huge.iso');
  fs.writeFileSync(huge, '');
  fs.truncateSync(huge, cap + 1);
  try {
    await page.getByTestId('file-input').setInputFiles(huge);
    const chip = page.locator('[data-testid="attachment-chip"][data-filename="huge.iso"]');
    await expect(chip).toHaveAttribute('data-status', 'error');
    await expect(chip.getByTestId('attachment-error')).toContainText('larger than this server’s upload limit of 100.0 MB');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the server’s error text is shown on a chip', async ({ app: page, server }) => {
  await newSession(page, server.workspace);
  await page.getByTestId('file-input').setInputFiles({ name: '...', mimeType: 'text/plain', buffer: Buffer.from('x') });
  const chip = page.locator('[data-testid="attachment-chip"][data-filename="..."]');
  await expect(chip).toHaveAttribute('data-status', 'error');
  await expect(chip.getByTestId('attachment-error')).toHaveText('Invalid filename');
});

test('images get a thumbnail; files dropped on the conversation are attached', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  // 1x1 PNG
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
  await page.evaluate(
    ([b64]) => {
      const bin = Uint8Array.from(atob(b64 ?? ''), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bin], 'dot.png', { type: 'image/png' }));
      dt.items.add(new File(['dropped text'], 'notes.txt', { type: 'text/plain' }));
      const target = document.querySelector('[data-testid="messages"]');
      for (const type of ['dragenter', 'dragover', 'drop']) target?.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    },
    [png.toString('base64')],
  );
  const img = page.locator('[data-testid="attachment-chip"][data-filename="dot.png"]');
  await expect(img).toHaveAttribute('data-status', 'done');
  await expect(img.getByTestId('attachment-thumb')).toHaveAttribute('src', /^blob:/);
  await expect(page.locator('[data-testid="attachment-chip"][data-filename="notes.txt"]')).toHaveAttribute('data-status', 'done');
  expect(fs.readFileSync(path.join(server.stateDir, 'attachments', id, 'dot.png')).equals(png)).toBe(true);
  expect(fs.readFileSync(path.join(server.stateDir, 'attachments', id, 'notes.txt'), 'utf8')).toBe('dropped text');
});

test('a pasted image becomes an attachment', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  await page.getByTestId('composer-input').focus();
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array([137, 80, 78, 71])], 'image.png', { type: 'image/png' }));
    document.querySelector('[data-testid="composer-input"]')?.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  });
  const chip = page.locator('[data-testid="attachment-chip"][data-filename^="pasted-"]');
  await expect(chip).toHaveAttribute('data-status', 'done');
  const name = await chip.getAttribute('data-filename');
  expect(name).toMatch(/^pasted-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.png$/);
  expect(fs.readFileSync(path.join(server.stateDir, 'attachments', id, name ?? '')).length).toBe(4);
});

test('Extract on an archive chip unpacks it and lists the files', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  const zip = await buildZip({ 'readme.txt': 'hello archive', 'src/main.ts': 'export {};\n' });
  await page.getByTestId('file-input').setInputFiles({ name: 'bundle.zip', mimeType: 'application/zip', buffer: zip });
  const chip = page.locator('[data-testid="attachment-chip"][data-filename="bundle.zip"]');
  await expect(chip).toHaveAttribute('data-status', 'done');
  const posts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST') posts.push(new URL(r.url()).pathname);
  });
  await chip.getByTestId('attachment-extract').click();
  const list = chip.getByTestId('extract-list');
  await expect(chip.getByTestId('extract-result')).toContainText('Extracted 2 files');
  // Relative to the extraction folder (bundle/), not to the session's attachment folder.
  await expect(list.getByTestId('extract-file')).toHaveText(['readme.txt', 'src/main.ts']);
  const base = path.join(server.stateDir, 'attachments', id);
  expect(fs.readFileSync(path.join(base, 'bundle', 'readme.txt'), 'utf8')).toBe('hello archive');
  expect(fs.readFileSync(path.join(base, 'bundle', 'src', 'main.ts'), 'utf8')).toBe('export {};\n');
  // The archive was uploaded once: the server extracts the file it stored, the page sends no bytes again.
  expect(posts.filter((p) => p.startsWith('/api/upload') || p.endsWith('/extract'))).toEqual(['/api/attachment/extract']);
});
