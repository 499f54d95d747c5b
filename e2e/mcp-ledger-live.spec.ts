/// <reference lib="dom" />
// Issue 39: the MCP panel's timeline ("What agents read") is live. With the panel open, an agent reads through the
// official MCP SDK client and its read appears at the top of the timeline without the panel being reopened or
// Refresh pressed (the `mcp_ledger_added` event, live-updates.ts); a search across conversations, a read under an
// agent filter of another agent, and calls that name no conversation (a listing, a search finding nothing, a
// refusal) follow the same way. 1280×800. Its own server: the keys made here reach no other spec.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiConversation, apiPost } from './helpers/api.js';
import { openApp } from './helpers/chat.js';
import { callJson, mcpClient } from './helpers/mcp.js';
import { startServer, type RunningServer } from './helpers/server.js';

let server: RunningServer;
const clients: Client[] = [];
let lease = '';
let trip = '';

test.describe.configure({ mode: 'serial', timeout: 180_000 });

test.beforeAll(async () => {
  server = await startServer();
  lease = await apiConversation(server, 'Lease notes', 'The lease ends in March.');
  trip = await apiConversation(server, 'Trip plans', 'Train to Lyon on Friday, the lease signed.');
});

test.afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.stop();
});

async function agent(name: string, kind: string): Promise<Client> {
  const { token } = await apiPost<{ token: string }>(server, '/api/mcp/keys', { name, kind, grants: [{ kind: 'all' }] });
  const client = await mcpClient({ base: server.base, token });
  clients.push(client);
  return client;
}

async function openPanel(page: Page): Promise<Locator> {
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await dialog.getByTestId('agent-tab-mcp').click();
  await expect(dialog.getByTestId('mcp-connect')).toBeVisible();
  return dialog;
}

test('a read recorded while the panel is open appears at the top of the timeline, without reopening it', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const codex = await agent('Codex live', 'codex');
  const cursor = await agent('Cursor live', 'cursor');
  await openApp(page, server);
  const dialog = await openPanel(page);
  const ledger = dialog.getByTestId('mcp-ledger');
  await expect(ledger.getByTestId('mcp-ledger-status')).toHaveText('Nothing read yet.');
  const rows = ledger.getByTestId('mcp-ledger-row');
  const what = ledger.getByTestId('mcp-ledger-what');
  const who = ledger.getByTestId('mcp-ledger-agent-cell');

  // The agent reads while the panel stays open: no click, no reopening.
  await callJson(codex, 'read_session', { session_id: lease });
  await expect(what).toHaveText(['read “Lease notes” (messages 0-199)']);
  await expect(who).toHaveText(['Codex live']);
  await expect(ledger.getByTestId('mcp-ledger-status')).toHaveText('1 read shown.');

  // A search across conversations: one row for each conversation it showed, both added above the first read.
  await callJson(codex, 'search', { query: 'lease' });
  await expect(what).toHaveCount(3);
  const searched = await what.allTextContents();
  expect(searched.slice(0, 2).sort()).toEqual(['searched “lease” in “Lease notes”', 'searched “lease” in “Trip plans”']);
  expect(searched[2]).toBe('read “Lease notes” (messages 0-199)');
  await expect(ledger.getByTestId('mcp-ledger-status')).toHaveText('3 reads shown.');

  // Filtered to Cursor: Codex's next read is not added; Cursor's is.
  await ledger.getByTestId('mcp-ledger-agent').selectOption({ label: 'Cursor live · Cursor' });
  await expect(ledger.getByTestId('mcp-ledger-status')).toHaveText('Nothing read yet.');
  await callJson(codex, 'read_session', { session_id: trip });
  await callJson(cursor, 'read_session', { session_id: trip });
  await expect(what).toHaveText(['read “Trip plans” (messages 0-199)']);
  await expect(who).toHaveText(['Cursor live']);
  await expect(rows).toHaveCount(1);

  // Back to all agents: every read, newest first, each once.
  await ledger.getByTestId('mcp-ledger-agent').selectOption({ label: 'All agents' });
  await expect(who).toHaveText(['Cursor live', 'Codex live', 'Codex live', 'Codex live', 'Codex live']);
  await expect(what).toHaveText(['read “Trip plans” (messages 0-199)', 'read “Trip plans” (messages 0-199)', ...searched]);

  // Calls that name no conversation (a listing, a search that found nothing, a refusal) are added as they happen too.
  await callJson(cursor, 'list_sessions', {});
  await expect(what.first()).toHaveText('listed conversations');
  await callJson(codex, 'search', { query: 'zeppelin' });
  await expect(what.first()).toHaveText('searched “zeppelin”');
  const missing = await cursor.callTool({ name: 'read_session', arguments: { session_id: 'ffffffffffff' } });
  expect(missing.isError).toBe(true);
  await expect(what.first()).toHaveText('read “ffffffffffff” (messages 0-199): not found');
  await expect(who.first()).toHaveText('Cursor live');
  await expect(ledger.getByTestId('mcp-ledger-status')).toHaveText('8 reads shown.');
});
