/// <reference lib="dom" />
// Workspace panel: the tree, folder uploads, drops on a folder, archives and Office sidecar previews.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, newSession, test } from './fixtures.js';
import { buildDocx, buildZip } from './helpers/zip.js';

/** Each test works in its own sub-folder of the shared trusted workspace, via a session on that folder. */
function freshWorkspace(root: string, name: string): string {
  const dir = path.join(root, `${name}-${Date.now().toString(36)}`);
  fs.mkdirSync(dir);
  return dir;
}

async function sessionIn(page: import('@playwright/test').Page, dir: string): Promise<void> {
  await page.getByTestId('new-session').click();
  const dialog = page.getByTestId('new-session-dialog');
  // The sub-folder is inside a trusted root; adding it makes it selectable (text prompt: no Electron here).
  await dialog.getByTestId('add-folder').click();
  await page.getByTestId('prompt-input').fill(dir);
  await page.getByTestId('prompt-ok').click();
  await expect(dialog.getByTestId('workspace-select')).toHaveValue(dir);
  await dialog.getByTestId('create-session').click();
  await expect(page.getByTestId('session-workspace')).toHaveText(`Workspace: ${dir}`);
  await expect(page.getByTestId('ws-root')).toHaveText(dir);
}

test('a folder picked with the directory picker is uploaded with its structure', async ({ app: page, server }) => {
  const ws = freshWorkspace(server.workspace, 'folder');
  await sessionIn(page, ws);
  const src = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-src-'));
  const proj = path.join(src, 'proj');
  fs.mkdirSync(path.join(proj, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(proj, 'a.txt'), 'alpha');
  fs.writeFileSync(path.join(proj, 'sub', 'b.txt'), 'beta');
  try {
    await page.getByTestId('ws-folder-input').setInputFiles(proj);
    await expect(page.getByTestId('ws-result')).toHaveCount(2);
    await expect(page.locator('[data-testid="ws-result"][data-status="done"]')).toHaveCount(2);
    expect(fs.readFileSync(path.join(ws, 'proj', 'a.txt'), 'utf8')).toBe('alpha');
    expect(fs.readFileSync(path.join(ws, 'proj', 'sub', 'b.txt'), 'utf8')).toBe('beta');

    // The tree shows the folder; expanding it loads its children.
    const folder = page.locator('[data-testid="ws-entry"][data-path="proj"]');
    await expect(folder).toHaveAttribute('aria-expanded', 'false');
    await folder.locator('> .tree-row').click();
    await expect(folder).toHaveAttribute('aria-expanded', 'true');
    await expect(page.locator('[data-testid="ws-entry"][data-path="proj/a.txt"]')).toBeVisible();
    await page.locator('[data-testid="ws-entry"][data-path="proj/sub"] > .tree-row').click();
    await expect(page.locator('[data-testid="ws-entry"][data-path="proj/sub/b.txt"]')).toBeVisible();

    // Clicking a file previews its text.
    await page.locator('[data-testid="ws-entry"][data-path="proj/sub/b.txt"] > .tree-row').click();
    await expect(page.getByTestId('md-preview')).toHaveText('beta');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('preview-dialog')).toBeHidden();
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
});

test('files dropped on a folder in the tree go into that folder', async ({ app: page, server }) => {
  const ws = freshWorkspace(server.workspace, 'dropdir');
  fs.mkdirSync(path.join(ws, 'inbox'));
  await sessionIn(page, ws);
  const row = page.locator('[data-testid="ws-entry"][data-path="inbox"] > .tree-row');
  await expect(row).toBeVisible();
  await row.evaluate((el) => {
    const dt = new DataTransfer();
    dt.items.add(new File(['dropped into inbox'], 'letter.txt', { type: 'text/plain' }));
    for (const type of ['dragenter', 'dragover', 'drop']) el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
  });
  await expect(page.locator('[data-testid="ws-result"][data-status="done"]')).toHaveCount(1);
  expect(fs.readFileSync(path.join(ws, 'inbox', 'letter.txt'), 'utf8')).toBe('dropped into inbox');
  await expect(page.locator('[data-testid="ws-entry"][data-path="inbox/letter.txt"]')).toBeVisible();
});

test('an archive dropped on the workspace is extracted in place; a corrupt one shows its error', async ({ app: page, server }) => {
  const ws = freshWorkspace(server.workspace, 'archive');
  await sessionIn(page, ws);
  const zip = await buildZip({ 'docs/one.md': '# One', 'two.txt': 'two' });
  await page.getByTestId('ws-file-input').setInputFiles([
    { name: 'pack.zip', mimeType: 'application/zip', buffer: zip },
  ]);
  const ok = page.locator('[data-testid="ws-result"][data-name="pack.zip"]');
  await expect(ok).toHaveAttribute('data-status', 'done');
  await expect(ok.getByTestId('ws-extract-summary')).toHaveText('Extracted 2 files');
  await expect(ok.getByTestId('ws-extract-file')).toHaveText(['pack/docs/one.md', 'pack/two.txt']);
  expect(fs.readFileSync(path.join(ws, 'pack', 'two.txt'), 'utf8')).toBe('two');
  expect(fs.existsSync(path.join(ws, 'pack.zip'))).toBe(false);
  await expect(page.locator('[data-testid="ws-entry"][data-path="pack"]')).toBeVisible();

  await page.getByTestId('ws-file-input').setInputFiles([{ name: 'broken.zip', mimeType: 'application/zip', buffer: Buffer.from('not a zip at all') }]);
  const bad = page.locator('[data-testid="ws-result"][data-name="broken.zip"]');
  await expect(bad.getByTestId('ws-result-error')).toHaveText(/^Not extracted: .+/);
  expect(fs.existsSync(path.join(ws, 'broken.zip'))).toBe(false);
});

test('a .docx uploaded to the workspace gets its Office sidecar, rendered as Markdown', async ({ app: page, server }) => {
  const ws = freshWorkspace(server.workspace, 'docx');
  await sessionIn(page, ws);
  const docx = await buildDocx('Quarterly Report', 'Revenue grew by twelve percent.');
  await page.getByTestId('ws-file-input').setInputFiles([
    { name: 'report.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', buffer: docx },
  ]);
  const row = page.locator('[data-testid="ws-result"][data-name="report.docx"]');
  await expect(row).toHaveAttribute('data-status', 'done');
  expect(docx.length).toBeLessThan(1024);
  await expect(row.getByTestId('ws-result-done')).toHaveText(`Uploaded · ${docx.length} B`);
  await expect(row.getByTestId('ws-result-error')).toHaveCount(0);
  const open = row.getByTestId('sidecar-open');
  await expect(open).toHaveAttribute('data-path', 'report.docx.md');
  await open.click();
  const preview = page.getByTestId('md-preview');
  await expect(preview.locator('h1')).toHaveText('Quarterly Report');
  await expect(preview.locator('p')).toHaveText('Revenue grew by twelve percent.');
  expect(fs.readFileSync(path.join(ws, 'report.docx.md'), 'utf8')).toContain('Quarterly Report');
  await page.getByTestId('preview-close').click();
  await expect(page.getByTestId('preview-dialog')).toBeHidden();
  // The sidecar is in the tree too, and opens the same preview.
  await page.locator('[data-testid="ws-entry"][data-path="report.docx.md"] > .tree-row').click();
  await expect(page.getByTestId('md-preview').locator('h1')).toHaveText('Quarterly Report');
});

test('a Markdown file with HTML in it previews as text, never as markup', async ({ app: page, server }) => {
  const ws = freshWorkspace(server.workspace, 'xss');
  fs.writeFileSync(path.join(ws, 'evil.md'), '# Title <img src=x onerror="window.__pwned=1">\n\n| a | b |\n|---|---|\n| <script>window.__pwned=2</script> | `x` |\n\n- item **bold**\n');
  await sessionIn(page, ws);
  await page.locator('[data-testid="ws-entry"][data-path="evil.md"] > .tree-row').click();
  const preview = page.getByTestId('md-preview');
  await expect(preview.locator('h1')).toHaveText('Title <img src=x onerror="window.__pwned=1">');
  await expect(preview.locator('td').first()).toHaveText('<script>window.__pwned=2</script>');
  await expect(preview.locator('li strong')).toHaveText('bold');
  expect(await preview.locator('img, script').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
});
