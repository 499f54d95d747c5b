/// <reference lib="dom" />
// MCP read receipts, as the person sees them: an agent outside the window (the MCP SDK's own client, on an agent
// key the person named "Claude Code", its client calling itself something else) reads a file dropped on the open
// conversation, and the conversation's header says "Claude Code read notes.txt · HH:MM" without a reload (the
// receipts are the ledger's, by the key's name: issue 39); "Keep out of MCP" then makes the agent's next
// read_session of it fail as for a conversation that does not exist.
import { expect, newSession, test } from './fixtures.js';
import { mcpClient } from './helpers/mcp.js';

test('an MCP read shows in the open conversation at once; Keep out of MCP hides it from the next read', async ({ app: page, server }) => {
  const id = await newSession(page, server.workspace);
  await page.getByTestId('file-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('the heron waits\n') });
  await expect(page.getByTestId('attachments')).toContainText('notes.txt');

  const made = await fetch(`${server.base}/api/mcp/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Claude Code', kind: 'claude_code', grants: [{ kind: 'all' }] }),
  });
  expect(made.status).toBe(200);
  const { token } = (await made.json()) as { token: string };
  const client = await mcpClient({ base: server.base, token }, 'some-agent');
  try {
    // The upload is stored once its chip is ready; read it as the agent would.
    await expect
      .poll(async () => {
        const r = await client.callTool({ name: 'read_attachment', arguments: { session_id: id, name: 'notes.txt' } });
        return r.isError ? 'error' : (r.content as { text: string }[])[0]!.text;
      })
      .toBe('the heron waits\n');

    const line = page.getByTestId('mcp-receipts-line');
    await expect(line).toHaveText(/^Claude Code read notes\.txt · \d\d:\d\d( [AP]M)?$/);
    // Its time is written as the messages write theirs, in the page's locale ("05:02 PM", never "17:02": issue 38).
    const clocks = await page.evaluate(() => {
      const f = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
      return [f.format(new Date()), f.format(new Date(Date.now() - 60_000))];
    });
    expect(clocks.map((c) => `Claude Code read notes.txt · ${c}`)).toContain((await line.innerText()).trim());
    await page.getByTestId('mcp-receipts').locator('summary').click();
    await expect(page.getByTestId('mcp-receipts-list').locator('li')).toHaveCount(1);

    const keepOut = page.getByTestId('keep-out-of-mcp');
    await expect(keepOut).not.toBeChecked();
    const saved = page.waitForResponse((r) => r.url().endsWith('/api/session/settings') && r.request().method() === 'POST');
    await keepOut.check();
    expect((await saved).status()).toBe(200);
    await expect(keepOut).toBeChecked();
    // The very next read is refused, as for a conversation that does not exist.
    const next = await client.callTool({ name: 'read_session', arguments: { session_id: id } });
    expect([next.isError, (next.content as { text: string }[])[0]!.text]).toEqual([true, 'Session not found']);
    // The refused read left no receipt: the line is as it was.
    await expect(line).toHaveText(/^Claude Code read notes\.txt · \d\d:\d\d( [AP]M)?$/);
  } finally {
    await client.close();
  }
});
