/// <reference lib="dom" />
// Keyboard and accessibility: focus lands in the composer after creating a session; an axe-core scan of the
// main screens (light and dark) finds no serious or critical violation; a small window keeps a usable message
// area, with the sessions list and the workspace as drawers that Escape closes.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, newSession, test } from './fixtures.js';
import { buildZip } from './helpers/zip.js';

/** Serious and critical violations only, in a form that names the rule and the elements. */
async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

test('after creating a session, focus is in the composer', async ({ app: page, server }) => {
  await newSession(page, server.workspace);
  await expect(page.getByTestId('composer-input')).toBeFocused();
  await page.keyboard.type('typed right away');
  await expect(page.getByTestId('composer-input')).toHaveValue('typed right away');
});

for (const scheme of ['light', 'dark'] as const) {
  test(`no serious or critical accessibility violations on the main screens (${scheme})`, async ({ app: page, server }) => {
    await page.emulateMedia({ colorScheme: scheme });
    // Every screen is scanned before the verdict, so one run names all that is wrong.
    const found: Record<string, string[]> = {};
    await newSession(page, server.workspace);
    await page.getByTestId('file-input').setInputFiles([
      { name: 'scan.txt', mimeType: 'text/plain', buffer: Buffer.from('scan me') },
      { name: 'bundle.zip', mimeType: 'application/zip', buffer: await buildZip({ 'docs/readme.txt': 'read me', 'docs/long-name-of-a-file-inside-the-archive.txt': 'x' }) },
    ]);
    await expect(page.locator('[data-testid="attachment-chip"][data-status="done"]')).toHaveCount(2);
    await page.locator('[data-testid="attachment-chip"][data-filename="bundle.zip"]').getByTestId('attachment-extract').click();
    await expect(page.getByTestId('extract-summary')).toHaveText('Extracted 2 files');
    await page.getByTestId('composer-input').fill('A message for the scan');
    await page.getByTestId('send').click();
    await expect(page.getByTestId('message-text')).toHaveText('A message for the scan');
    found['conversation'] = await seriousViolations(page);

    // The preview dialog: an extracted archive's files, then one of them; Escape gives focus back to the chip.
    const folderChip = page.getByTestId('folder-open');
    await folderChip.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('folder-entry')).toHaveCount(2);
    found['folder preview'] = await seriousViolations(page);
    await page.getByTestId('folder-entry').first().click();
    await expect(page.getByTestId('md-preview')).toHaveAttribute('data-state', 'ready');
    found['file preview'] = await seriousViolations(page);
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('preview-dialog')).toBeHidden();
    await expect(folderChip).toBeFocused();

    await page.getByTestId('new-session').click();
    await expect(page.getByTestId('new-session-dialog')).toBeVisible();
    found['new session dialog'] = await seriousViolations(page);
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('new-session-dialog')).toBeHidden();

    await page.getByTestId('agent-settings-button').click();
    await expect(page.getByTestId('agent-dialog')).toBeVisible();
    found['agent settings'] = await seriousViolations(page);
    await page.getByTestId('agent-tab-mcp').click();
    await expect(page.getByTestId('mcp-panel')).toBeVisible();
    found['MCP panel'] = await seriousViolations(page);
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('agent-dialog')).toBeHidden();

    await page.setViewportSize({ width: 800, height: 600 });
    await page.getByTestId('workspace-toggle').click();
    await expect(page.getByTestId('workspace-panel')).toBeVisible();
    found['workspace drawer'] = await seriousViolations(page);
    expect(found).toEqual({ conversation: [], 'folder preview': [], 'file preview': [], 'new session dialog': [], 'agent settings': [], 'MCP panel': [], 'workspace drawer': [] });
  });
}

test('at 800×600 the messages have room, and the workspace opens as a drawer that Escape closes', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  await page.setViewportSize({ width: 800, height: 600 });
  const title = 'A very long session title that says exactly what this conversation about quarterly numbers is for';
  await page.request.post(`${server.base}/api/session/rename`, { data: { session_id: id, title } });
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');

  // One column: no sidebar or workspace beside the conversation.
  await expect(page.getByTestId('session-list')).toBeHidden();
  await expect(page.getByTestId('workspace-panel')).toBeHidden();
  const messages = await page.getByTestId('messages').boundingBox();
  expect(messages!.width).toBeGreaterThanOrEqual(760);
  expect(messages!.height).toBeGreaterThanOrEqual(300);

  // The title in full: in the header (wrapped, nothing cut) and on hover.
  const header = page.getByTestId('session-title');
  await expect(header).toHaveText(title);
  await expect(header).toHaveAttribute('title', title);
  expect(await header.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

  const toggle = page.getByTestId('workspace-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  const panel = page.getByTestId('workspace-panel');
  await expect(panel).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  // Focus moved into the drawer, and Tab keeps it there.
  expect(await panel.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  for (let i = 0; i < 12; i++) await page.keyboard.press('Tab');
  expect(await panel.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(toggle).toBeFocused();

  // The sessions list too; picking a session closes it.
  await page.getByTestId('sessions-toggle').click();
  await expect(page.getByTestId('session-list')).toBeVisible();
  const item = page.locator(`[data-testid="session-item"][data-session-id="${id}"]`);
  await expect(item.getByTestId('session-item-title')).toHaveAttribute('title', title);
  await item.click();
  await expect(page.getByTestId('session-list')).toBeHidden();
});
