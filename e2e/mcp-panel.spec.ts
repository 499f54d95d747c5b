/// <reference lib="dom" />
// The MCP panel in the agent settings dialog: the endpoint and the token (hidden until Show), a Claude Code
// snippet that Copy puts on the clipboard, and Regenerate, after which the old token is refused by /mcp.
// Its own server: regenerating must not touch the token other specs use.
import { test, expect, type Page } from '@playwright/test';
import { openApp } from './helpers/chat.js';
import { startServer, type RunningServer } from './helpers/server.js';

let server: RunningServer;

test.beforeAll(async () => {
  server = await startServer();
});

test.afterAll(async () => {
  await server?.stop();
});

/** An MCP initialize with `token`: its status says whether /mcp takes it. */
async function mcpStatus(token: string): Promise<number> {
  const res = await fetch(`${server.base}/mcp`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } }),
  });
  return res.status;
}

async function openPanel(page: Page) {
  await openApp(page, server);
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await dialog.getByTestId('agent-tab-mcp').click();
  await expect(dialog.getByTestId('agent-base-url')).toBeHidden();
  return dialog;
}

test('the panel shows the endpoint and a hidden token; Copy puts the Claude Code command on the clipboard', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
  const dialog = await openPanel(page);
  const url = `${server.base}/mcp`;
  await expect(dialog.getByTestId('mcp-url')).toHaveText(url);
  const token = dialog.getByTestId('mcp-token');
  await expect(token).toHaveAttribute('data-visible', '0');
  const snippet = dialog.getByTestId('mcp-snippet-claude_code');
  await expect(snippet).toContainText(url);
  await expect(snippet).toContainText('••••');

  await dialog.getByTestId('mcp-token-toggle').click();
  await expect(token).toHaveAttribute('data-visible', '1');
  const value = (await token.textContent()) ?? '';
  expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const command = `claude mcp add --transport http satchel ${url} --header "Authorization: Bearer ${value}"`;
  await expect(snippet).toHaveText(command);
  for (const key of ['codex', 'cursor', 'hermes']) await expect(dialog.getByTestId(`mcp-snippet-${key}`)).toContainText(`Bearer ${value}`);

  await dialog.getByTestId('mcp-copy-claude_code').click();
  await expect(dialog.getByTestId('mcp-copy-claude_code')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);
  expect(await mcpStatus(value)).toBe(200);
});

test('Regenerate (confirmed) shows a new token in the snippets, and /mcp refuses the old one', async ({ page }) => {
  const dialog = await openPanel(page);
  await dialog.getByTestId('mcp-token-toggle').click();
  const token = dialog.getByTestId('mcp-token');
  await expect(token).toHaveAttribute('data-visible', '1');
  const old = (await token.textContent()) ?? '';
  expect(await mcpStatus(old)).toBe(200);

  // Declining the confirmation changes nothing.
  page.once('dialog', (d) => void d.dismiss());
  await dialog.getByTestId('mcp-regenerate').click();
  await expect(token).toHaveText(old);
  expect(await mcpStatus(old)).toBe(200);

  page.once('dialog', (d) => void d.accept());
  await dialog.getByTestId('mcp-regenerate').click();
  await expect(token).not.toHaveText(old);
  const fresh = (await token.textContent()) ?? '';
  await expect(dialog.getByTestId('mcp-snippet-claude_code')).toContainText(`Bearer ${fresh}`);
  expect(await mcpStatus(old)).toBe(401);
  expect(await mcpStatus(fresh)).toBe(200);
});
