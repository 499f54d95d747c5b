/// <reference lib="dom" />
// Issue 39 in Chromium: a person connects two agents in the MCP panel, each with its own key (token shown once),
// grants one of them a single conversation, and both read through the official MCP SDK client; revoking one in
// the panel refuses its next call, and the panel's timeline shows each read under the right agent. Then the
// grants editor, pause and rename at 800×600. axe finds nothing serious; the main path is done by keys alone.
// Its own server: keys made and revoked here must not reach the other specs.
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
const tokens: Record<'claude' | 'codex', string> = { claude: '', codex: '' };
const clients: Client[] = [];

// Each test walks a whole path with several axe scans: on a loaded two-core machine that outlasts the 60 s default.
test.describe.configure({ mode: 'serial', timeout: 240_000 });

const post = <T>(route: string, body: unknown): Promise<T> => apiPost<T>(server, route, body);
const conversation = (title: string, text: string): Promise<string> => apiConversation(server, title, text);

test.beforeAll(async () => {
  server = await startServer();
  ids.lease = await conversation('Lease notes', 'The lease ends in March.');
  ids.trip = await conversation('Trip plans', 'Train to Lyon on Friday.');
});

test.afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.stop();
});

/** Serious and critical violations only, naming the rule and the elements. */
async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).include('[data-testid="agent-dialog"]').analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function openPanel(page: Page): Promise<Locator> {
  await openApp(page, server);
  // In a small window the sidebar, which holds the button, is a drawer.
  if (!(await page.getByTestId('agent-settings-button').isVisible())) await page.getByTestId('sessions-toggle').click();
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await dialog.getByTestId('agent-tab-mcp').click();
  await expect(dialog.getByTestId('mcp-connect')).toBeVisible();
  return dialog;
}

/** Presses Tab until `target` has the keyboard (at most `max` presses): the path a keyboard-only person takes. */
async function tabTo(page: Page, target: Locator, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  await expect(target).toBeFocused();
}

const keyRow = (dialog: Locator, name: string) => dialog.getByTestId('mcp-key').filter({ has: dialog.page().getByTestId('mcp-key-name').getByText(name, { exact: true }) });

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(screenshotDir(test.info()), `${name}.png`) });
}

test('connect two agents, one granted a single conversation; both read through the SDK; revoke one; the timeline names each read', async ({ page, context }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
  const dialog = await openPanel(page);
  // Before any agent: the shared token is "Unnamed client", granted everything.
  await expect(keyRow(dialog, 'Unnamed client').getByTestId('mcp-key-grants')).toContainText('All conversations');

  // The first agent by keys alone: Connect, its kind, its name, only "Lease notes", Make its key.
  await dialog.getByTestId('mcp-connect').focus();
  await page.keyboard.press('Enter');
  await expect(dialog.getByTestId('mcp-connect-name')).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(dialog.getByTestId('mcp-connect-kind')).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+a');
  await page.keyboard.type('Claude Code at home');
  await page.keyboard.press('Tab');
  await expect(dialog.getByTestId('mcp-connect-grants-all')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(dialog.getByTestId('mcp-connect-grants-some')).toBeChecked();
  await tabTo(page, dialog.getByTestId('mcp-connect-grants-find'));
  await page.keyboard.type('lease');
  await expect(dialog.getByTestId('mcp-connect-grants-conversation')).toHaveCount(1);
  // Enter in the search box does not make the key yet.
  await page.keyboard.press('Enter');
  await expect(dialog.getByTestId('mcp-connect-form')).toBeVisible();
  await expect(dialog.getByTestId('mcp-created')).toHaveCount(0);
  await page.keyboard.press('Tab');
  await expect(dialog.getByTestId('mcp-connect-grants-conversation')).toBeFocused();
  await page.keyboard.press('Space');
  await expect(dialog.getByTestId('mcp-connect-grants-conversation')).toBeChecked();
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'connect-form-1280');
  await tabTo(page, dialog.getByTestId('mcp-connect-create'));
  await page.keyboard.press('Enter');

  // Its token and its Claude Code command, this once; the Copy button has the keyboard.
  const created = dialog.getByTestId('mcp-created');
  await expect(created).toContainText('Claude Code at home’s key is ready');
  tokens.claude = (await dialog.getByTestId('mcp-created-token').textContent()) ?? '';
  expect(tokens.claude).toMatch(/^satchel_ak_[A-Za-z0-9_-]{43}$/);
  await expect(dialog.getByTestId('mcp-created-snippet')).toHaveText(`claude mcp add --transport http satchel ${server.base}/mcp --header "Authorization: Bearer ${tokens.claude}"`);
  await expect(dialog.getByTestId('mcp-created-copy-token')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog.getByTestId('mcp-created-copy-token')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(tokens.claude);
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'created-1280');
  await tabTo(page, dialog.getByTestId('mcp-created-done'));
  await page.keyboard.press('Enter');
  await expect(created).toHaveCount(0);
  await expect(dialog.getByTestId('mcp-created-token')).toHaveCount(0);
  await expect(keyRow(dialog, 'Claude Code at home').getByTestId('mcp-key-grants')).toHaveText(/^“Lease notes” · never used$/);

  // The second by mouse: Codex, everything.
  await dialog.getByTestId('mcp-connect').click();
  await dialog.getByTestId('mcp-connect-kind').selectOption('codex');
  await expect(dialog.getByTestId('mcp-connect-name')).toHaveValue('Codex');
  await dialog.getByTestId('mcp-connect-name').fill('Codex at work');
  await dialog.getByTestId('mcp-connect-create').click();
  tokens.codex = (await dialog.getByTestId('mcp-created-token').textContent()) ?? '';
  expect(tokens.codex).toMatch(/^satchel_ak_/);
  expect(tokens.codex).not.toBe(tokens.claude);
  await expect(dialog.getByTestId('mcp-created-snippet')).toContainText(`Bearer ${tokens.codex}`);
  await dialog.getByTestId('mcp-created-done').click();
  await expect(keyRow(dialog, 'Codex at work').getByTestId('mcp-key-grants')).toContainText('All conversations');

  // Both read with the official SDK client: Claude Code sees only "Lease notes"; the other is "not found".
  const claude = await mcpClient({ base: server.base, token: tokens.claude }, 'claude-code');
  const codex = await mcpClient({ base: server.base, token: tokens.codex }, 'codex');
  clients.push(claude, codex);
  const claudeList = await callJson<{ title: string }[]>(claude, 'list_sessions', {});
  expect(claudeList.map((s) => s.title)).toEqual(['Lease notes']);
  const codexList = await callJson<{ title: string }[]>(codex, 'list_sessions', {});
  expect(codexList.map((s) => s.title).sort()).toEqual(['Lease notes', 'Trip plans']);
  const lease = await callJson<{ messages: { content?: string; text?: string }[] }>(claude, 'read_session', { session_id: ids.lease });
  expect(JSON.stringify(lease.messages)).toContain('The lease ends in March.');
  const refused = await claude.callTool({ name: 'read_session', arguments: { session_id: ids.trip } });
  expect(refused.isError).toBe(true);
  expect(JSON.stringify(refused.content)).toContain('Session not found');
  const trip = await callJson<{ messages: unknown[] }>(codex, 'read_session', { session_id: ids.trip });
  expect(JSON.stringify(trip.messages)).toContain('Train to Lyon on Friday.');

  // Revoke Codex in the panel (confirmed): its very next call is refused; Claude Code still reads.
  page.once('dialog', (d) => void d.accept());
  await keyRow(dialog, 'Codex at work').getByTestId('mcp-key-revoke').click();
  await expect(keyRow(dialog, 'Codex at work').getByTestId('mcp-key-status')).toHaveText('Revoked');
  await expect(keyRow(dialog, 'Codex at work').getByTestId('mcp-key-revoke')).toHaveCount(0);
  await expect(codex.callTool({ name: 'list_sessions', arguments: {} })).rejects.toThrow(/401|Unauthorized|invalid|revoked/i);
  expect((await callJson<{ title: string }[]>(claude, 'list_sessions', {})).map((s) => s.title)).toEqual(['Lease notes']);

  // The timeline: each read under its agent, newest first.
  await dialog.getByTestId('mcp-ledger-refresh').click();
  const rows = dialog.getByTestId('mcp-ledger-row');
  const row = (agent: string, what: RegExp) => rows.filter({ has: page.getByTestId('mcp-ledger-agent-cell').getByText(agent, { exact: true }) }).filter({ has: page.getByTestId('mcp-ledger-what').getByText(what) });
  await expect(row('Claude Code at home', /^read “Lease notes” \(messages 0-\d+\)$/)).toHaveCount(1);
  await expect(row('Claude Code at home', /^read “Trip plans” \(messages 0-\d+\): not found$/)).toHaveCount(1);
  await expect(row('Claude Code at home', /^listed conversations$/)).toHaveCount(2);
  await expect(row('Codex at work', /^read “Trip plans” \(messages 0-\d+\)$/)).toHaveCount(1);
  await expect(row('Codex at work', /^listed conversations$/)).toHaveCount(1);
  await expect(rows).toHaveCount(6);
  await expect(rows.first().getByTestId('mcp-ledger-what')).toHaveText('listed conversations');
  await expect(rows.first().getByTestId('mcp-ledger-agent-cell')).toHaveText('Claude Code at home');

  // Filtered by agent, then by conversation too; the export links follow the filter.
  await dialog.getByTestId('mcp-ledger-agent').selectOption({ label: 'Codex at work (revoked)' });
  await expect(rows).toHaveCount(2);
  await dialog.getByTestId('mcp-ledger-agent').selectOption({ label: 'All agents' });
  await dialog.getByTestId('mcp-ledger-conversation').selectOption({ label: 'Trip plans' });
  await expect(rows).toHaveCount(2);
  await expect(rows.getByTestId('mcp-ledger-agent-cell')).toHaveText(['Codex at work', 'Claude Code at home']);
  const csvHref = (await dialog.getByTestId('mcp-ledger-csv').getAttribute('href')) ?? '';
  expect(csvHref).toBe(`/api/mcp/ledger/export?session_id=${ids.trip}&format=csv`);
  const csv = await page.request.get(`${server.base}${csvHref}`);
  expect(csv.status()).toBe(200);
  const lines = (await csv.text()).trim().split('\r\n');
  expect(lines[0]).toBe('id,at,key_id,op,outcome,session_id,kind,name,range,query,bytes,sha256');
  expect(lines.slice(1).map((l) => l.split(',')[4])).toEqual(['ok', 'not_found']);
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'agents-and-ledger-1280');
});

test('at 800×600: the grants editor widens an agent to a second conversation, pause refuses its calls until resumed, rename', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  const dialog = await openPanel(page);
  const row = keyRow(dialog, 'Claude Code at home');
  const claude = await mcpClient({ base: server.base, token: tokens.claude }, 'claude-code');
  clients.push(claude);

  // Access: add "Trip plans" and an end day; the summary says so, and the agent reads it on its next call.
  await row.getByTestId('mcp-key-access').click();
  const editor = row.getByTestId('mcp-access');
  await expect(editor.getByTestId('mcp-access-some')).toBeChecked();
  await expect(editor.getByTestId('mcp-access-some')).toBeFocused();
  const trip = editor.getByTestId('mcp-access-conversation').and(page.locator(`[value="${ids.trip}"]`));
  await expect(trip).not.toBeChecked();
  await trip.check();
  const end = new Date(Date.now() + 7 * 86_400_000);
  const day = `${end.getFullYear()}-${String(end.getMonth() + 1).padStart(2, '0')}-${String(end.getDate()).padStart(2, '0')}`;
  await editor.getByTestId('mcp-access-expires').fill(day);
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'access-800');
  await editor.getByTestId('mcp-access-save').click();
  await expect(editor).toHaveCount(0);
  await expect(row.getByTestId('mcp-key-grants')).toContainText(/^2 conversations · until .+ · last used/);
  await expect(row.getByTestId('mcp-key-access')).toBeFocused();
  const read = await callJson<{ messages: unknown[] }>(claude, 'read_session', { session_id: ids.trip });
  expect(JSON.stringify(read.messages)).toContain('Train to Lyon on Friday.');

  // A past day is refused in the editor, before anything is sent.
  await row.getByTestId('mcp-key-access').click();
  await row.getByTestId('mcp-access-expires').fill('2020-01-01');
  await row.getByTestId('mcp-access-save').click();
  await expect(row.getByTestId('mcp-access-error')).toHaveText('Pick an end day from today on, or leave it empty.');
  await row.getByTestId('mcp-access-cancel').click();

  // Pause: its next call is refused; Resume lets it read again.
  await row.getByTestId('mcp-key-pause').click();
  await expect(row.getByTestId('mcp-key-status')).toHaveText('Paused');
  await expect(row.getByTestId('mcp-key-pause')).toHaveText('Resume');
  await expect(claude.callTool({ name: 'list_sessions', arguments: {} })).rejects.toThrow(/403|paused/i);
  await row.getByTestId('mcp-key-pause').click();
  await expect(row.getByTestId('mcp-key-status')).toHaveText('Active');
  const again = await mcpClient({ base: server.base, token: tokens.claude }, 'claude-code');
  clients.push(again);
  expect((await callJson<{ title: string }[]>(again, 'list_sessions', {})).map((s) => s.title).sort()).toEqual(['Lease notes', 'Trip plans']);

  // Rename through the prompt.
  await row.getByTestId('mcp-key-rename').click();
  await page.getByTestId('prompt-input').fill('Claude Code (laptop)');
  await page.getByTestId('prompt-ok').click();
  await expect(keyRow(dialog, 'Claude Code (laptop)')).toHaveCount(1);
  // The timeline names the agent by its new name, and holds this test's reads too (a change to the keys reloads it).
  const agents = dialog.getByTestId('mcp-ledger-agent-cell');
  await expect(agents.filter({ hasText: 'Claude Code at home' })).toHaveCount(0);
  const tripRead = page.getByTestId('mcp-ledger-what').getByText(/^read “Trip plans” \(messages 0-\d+\)$/);
  await expect(dialog.getByTestId('mcp-ledger-row').filter({ has: page.getByTestId('mcp-ledger-agent-cell').getByText('Claude Code (laptop)', { exact: true }) }).filter({ has: tripRead })).toHaveCount(1);
  await expect(dialog.getByTestId('mcp-ledger-agent').locator('option')).toHaveText(['All agents', 'Unnamed client', 'Claude Code (laptop) · Claude Code', 'Codex at work (revoked)', 'Satchel itself']);
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'agents-800');
  await page.emulateMedia({ colorScheme: 'dark' });
  await dialog.getByTestId('mcp-ledger').scrollIntoViewIfNeeded();
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, 'ledger-800-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Retire the shared token: its section says so, and /mcp refuses it.
  const shared = (await (await fetch(`${server.base}/api/mcp`, { headers: { Authorization: `Bearer ${server.token}` } })).json()) as { token: string };
  page.once('dialog', (d) => void d.accept());
  await keyRow(dialog, 'Unnamed client').getByTestId('mcp-key-revoke').click();
  await expect(keyRow(dialog, 'Unnamed client').getByTestId('mcp-key-status')).toHaveText('Retired');
  await expect(dialog.getByTestId('mcp-shared-retired')).toBeVisible();
  await expect(dialog.getByTestId('mcp-token')).toHaveCount(0);
  await expect(mcpClient({ base: server.base, token: shared.token })).rejects.toThrow();

  // Paged: 50 rows a page, older ones behind "Show older", until none are left.
  for (let i = 0; i < 50; i++) await callJson(again, 'list_sessions', {});
  const total = (await (await fetch(`${server.base}/api/mcp/ledger?limit=500`, { headers: { Authorization: `Bearer ${server.token}` } })).json()) as { entries: unknown[] };
  expect(total.entries.length).toBeGreaterThan(50);
  expect(total.entries.length).toBeLessThan(100);
  await dialog.getByTestId('mcp-ledger-refresh').click();
  await expect(dialog.getByTestId('mcp-ledger-row')).toHaveCount(50);
  await expect(dialog.getByTestId('mcp-ledger-status')).toHaveText('50 reads shown; older ones below “Show older”.');
  await dialog.getByTestId('mcp-ledger-more').click();
  await expect(dialog.getByTestId('mcp-ledger-row')).toHaveCount(total.entries.length);
  await expect(dialog.getByTestId('mcp-ledger-more')).toBeHidden();
  await expect(dialog.getByTestId('mcp-ledger-status')).toHaveText(`${total.entries.length} reads shown.`);
});
