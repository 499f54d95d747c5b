/// <reference lib="dom" />
// Issue 39's folder grants in Chromium: a person grants an agent the folder "Travel" in the MCP panel's grants
// editor; the agent reads the conversation in it through the official MCP SDK client; the person moves that
// conversation out of the folder in the sidebar, and the agent's next read answers "Session not found"; the panel's
// timeline shows each read under the agent, the folder named in words. Then the editor at 800×600. axe finds nothing
// serious. Its own server: keys made here must not reach the other specs.
import AxeBuilder from '@axe-core/playwright';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiConversation, apiPost } from './helpers/api.js';
import { openApp } from './helpers/chat.js';
import { callJson, mcpClient } from './helpers/mcp.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { startServer, type RunningServer } from './helpers/server.js';
import path from 'node:path';

let server: RunningServer;
const ids: Record<'lease' | 'trip', string> = { lease: '', trip: '' };
let travel = '';
let token = '';
const clients: Client[] = [];

// Each test walks a whole path with axe scans: on a loaded two-core machine that outlasts the 60 s default.
test.describe.configure({ mode: 'serial', timeout: 240_000 });

const post = <T>(route: string, body: unknown): Promise<T> => apiPost<T>(server, route, body);
const conversation = (title: string, text: string): Promise<string> => apiConversation(server, title, text);

test.beforeAll(async () => {
  server = await startServer();
  ids.lease = await conversation('Lease notes', 'The lease ends in March.');
  ids.trip = await conversation('Trip plans', 'Train to Lyon on Friday.');
  travel = (await post<{ folder: { id: string } }>('/api/folders/new', { name: 'Travel' })).folder.id;
  await post('/api/session/folder', { session_id: ids.trip, folder_id: travel });
});

test.afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.stop();
});

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).include('[data-testid="agent-dialog"]').analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function openPanel(page: Page): Promise<Locator> {
  // In a small window the sidebar, which holds the button, is a drawer.
  if (!(await page.getByTestId('agent-settings-button').isVisible())) await page.getByTestId('sessions-toggle').click();
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await dialog.getByTestId('agent-tab-mcp').click();
  await expect(dialog.getByTestId('mcp-connect')).toBeVisible();
  return dialog;
}

const keyRow = (dialog: Locator, name: string) => dialog.getByTestId('mcp-key').filter({ has: dialog.page().getByTestId('mcp-key-name').getByText(name, { exact: true }) });

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(screenshotDir(test.info()), `${name}.png`) });
}

test('an agent granted the folder "Travel" reads the conversation in it until it is moved out in the sidebar; the timeline names each read', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, server);
  let dialog = await openPanel(page);

  // Connect an agent granted only the folder, chosen by keys: Space ticks it.
  await dialog.getByTestId('mcp-connect').click();
  await dialog.getByTestId('mcp-connect-name').fill('Claude Code travel');
  await dialog.getByTestId('mcp-connect-grants-some').check();
  const folders = dialog.getByTestId('mcp-connect-grants-folders');
  await expect(dialog.getByRole('group', { name: 'Folders' })).toBeVisible();
  await expect(folders.locator('label')).toHaveText(['Travel1 conversation']);
  const box = folders.getByTestId('mcp-connect-grants-folder');
  await box.focus();
  await page.keyboard.press('Space');
  await expect(box).toBeChecked();
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'connect-folder-1280');
  await dialog.getByTestId('mcp-connect-create').click();
  token = (await dialog.getByTestId('mcp-created-token').textContent()) ?? '';
  expect(token).toMatch(/^satchel_ak_[A-Za-z0-9_-]{43}$/);
  await dialog.getByTestId('mcp-created-done').click();
  const row = keyRow(dialog, 'Claude Code travel');
  await expect(row.getByTestId('mcp-key-grants')).toHaveText('the folder “Travel” · never used');
  // What the server holds: one folder grant, nothing else.
  const keys = (await (await fetch(`${server.base}/api/mcp/keys`, { headers: { Authorization: `Bearer ${server.token}` } })).json()) as { keys: { name: string; grants: unknown[] }[] };
  expect(keys.keys.find((k) => k.name === 'Claude Code travel')?.grants).toEqual([{ kind: 'folder', folder_id: travel, expires_at: null }]);

  // The agent, through the official SDK client: the folder's conversation, by its name and by its id; nothing else.
  const agent = await mcpClient({ base: server.base, token }, 'claude-code');
  clients.push(agent);
  expect((await callJson<{ title: string }[]>(agent, 'list_sessions', { folder: 'Travel' })).map((s) => s.title)).toEqual(['Trip plans']);
  expect((await callJson<{ title: string }[]>(agent, 'list_sessions', { folder: travel })).map((s) => s.title)).toEqual(['Trip plans']);
  const trip = await callJson<{ messages: unknown[] }>(agent, 'read_session', { session_id: ids.trip });
  expect(JSON.stringify(trip.messages)).toContain('Train to Lyon on Friday.');
  const lease = await agent.callTool({ name: 'read_session', arguments: { session_id: ids.lease } });
  expect(lease.isError).toBe(true);
  expect(JSON.stringify(lease.content)).toContain('Session not found');

  // The person moves "Trip plans" out of the folder in the sidebar ("Move to…" → No folder).
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  const tripRow = page.locator(`[data-testid="session-row"][data-session-id="${ids.trip}"]`);
  await tripRow.hover();
  await tripRow.getByTestId('session-move').click();
  await page.getByTestId('move-menu').getByRole('menuitemradio', { name: 'No folder' }).click();
  await expect(page.getByTestId('session-folder').locator(`[data-testid="session-row"][data-session-id="${ids.trip}"]`)).toHaveCount(0);

  // Its next read: as for a conversation that does not exist.
  const gone = await agent.callTool({ name: 'read_session', arguments: { session_id: ids.trip } });
  expect(gone.isError).toBe(true);
  expect(JSON.stringify(gone.content)).toContain('Session not found');
  expect(await callJson<unknown[]>(agent, 'list_sessions', {})).toEqual([]);

  // The timeline: each read under the agent, the folder in words (asked by name and by id alike).
  dialog = await openPanel(page);
  const rows = dialog.getByTestId('mcp-ledger-row').filter({ has: page.getByTestId('mcp-ledger-agent-cell').getByText('Claude Code travel', { exact: true }) });
  const what = rows.getByTestId('mcp-ledger-what');
  await expect(what).toHaveText([
    'listed conversations',
    /^read “Trip plans” \(messages 0-\d+\): not found$/,
    /^read “Lease notes” \(messages 0-\d+\): not found$/,
    /^read “Trip plans” \(messages 0-\d+\)$/,
    'listed conversations in the folder “Travel”',
    'listed conversations in the folder “Travel”',
  ]);
  await expect(keyRow(dialog, 'Claude Code travel').getByTestId('mcp-key-grants')).toHaveText(/^the folder “Travel” · last used /);
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'folder-timeline-1280');
});

test('at 800×600: the Access editor shows the folder granted; a conversation moved into it is read on the next call', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await openApp(page, server);
  const dialog = await openPanel(page);
  const row = keyRow(dialog, 'Claude Code travel');
  await row.getByTestId('mcp-key-access').click();
  const editor = row.getByTestId('mcp-access');
  await expect(editor.getByTestId('mcp-access-some')).toBeChecked();
  const box = editor.getByTestId('mcp-access-folder');
  await expect(box).toBeChecked();
  await expect(editor.getByTestId('mcp-access-folders').locator('label')).toHaveText(['Travel0 conversations']);
  await box.scrollIntoViewIfNeeded();
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'access-folder-800');
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'access-folder-800-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Unticked and saved: the agent is granted nothing; ticked again: the folder once more.
  await box.uncheck();
  await editor.getByTestId('mcp-access-save').click();
  await expect(row.getByTestId('mcp-key-grants')).toHaveText(/^Nothing yet · last used /);
  await row.getByTestId('mcp-key-access').click();
  await row.getByTestId('mcp-access-folder').check();
  await row.getByTestId('mcp-access-save').click();
  await expect(row.getByTestId('mcp-key-grants')).toHaveText(/^the folder “Travel” · last used /);

  // "Lease notes" moved into the folder: the agent reads it on its next call.
  await post('/api/session/folder', { session_id: ids.lease, folder_id: travel });
  const agent = await mcpClient({ base: server.base, token }, 'claude-code');
  clients.push(agent);
  const lease = await callJson<{ messages: unknown[] }>(agent, 'read_session', { session_id: ids.lease });
  expect(JSON.stringify(lease.messages)).toContain('The lease ends in March.');
});
