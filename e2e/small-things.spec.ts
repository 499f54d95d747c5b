/// <reference lib="dom" />
// Issue 38, item 9: the small things a daily user trips on, as they see them, at 1280×800 and 800×600. An empty
// file says it is empty; the gear stops saying "Connect an agent" once one is connected; a connection's port is
// never cut off; "Start a session" sits under the header, never over its border.
import { test, expect, type Page } from '@playwright/test';
import { configureAgent, openApp } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';
import type { FakeAgent } from '../server/testing/fake-agent.js';

const KEY = 'sk-small-things-key';
let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});

async function newConversation(page: Page): Promise<void> {
  await page.getByTestId('new-session').click();
  await page.getByTestId('create-session').click();
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]) {
  test(`${size.width}×${size.height}: an empty file, the gear's words, a connection's port, the empty conversation's heading`, async ({ page }) => {
    await page.setViewportSize(size);
    await openApp(page, server);
    const gear = page.getByTestId('agent-settings-button');
    // At 800×600 the sidebar, and the gear in it, is a drawer.
    const narrow = size.width < 1000;
    const showSidebar = async () => {
      if (narrow && !(await gear.isVisible())) await page.getByTestId('sessions-toggle').click();
    };
    await showSidebar();
    if (size.width === 1280) {
      // The first run starts with no agent: the gear invites one.
      await expect(gear).toHaveAttribute('title', 'Connect an agent');
      await configureAgent(page, agent, KEY);
    }
    // Connected: it no longer asks to connect one (it did with two agents connected).
    await expect(gear).toHaveAttribute('title', 'Agent settings');

    // A connection named at length: the name gives way, the host and its port never do.
    await showSidebar();
    await gear.click();
    const dialog = page.getByTestId('agent-dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('heading', { level: 2 })).toHaveText('Chat agent');
    await dialog.getByTestId('agent-connection-name').fill('The agent on the home lab server, the one with the big model');
    await dialog.getByTestId('agent-save').click();
    await expect(dialog).toBeHidden();
    await gear.click();
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId('agent-connection-item').first()).toContainText('The agent on the home lab');
    const host = dialog.getByTestId('agent-connection-host').first();
    await expect(host).toHaveText(`127.0.0.1:${agent.port}`);
    const cut = await host.evaluate((el) => el.scrollWidth > el.clientWidth + 1 || el.getBoundingClientRect().right > el.closest('li')!.getBoundingClientRect().right + 1);
    expect(cut).toBe(false);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();

    // A new conversation: its heading below the header (the header grew with the conversation's settings line).
    await showSidebar();
    await newConversation(page);
    await expect(page.getByTestId('conversation-settings')).toBeVisible();
    const heading = page.locator('#empty-state h2');
    await expect(heading).toHaveText('Start a session');
    const headerBottom = (await page.locator('header.chat-head').boundingBox())!;
    const headingBox = (await heading.boundingBox())!;
    expect(headingBox.y).toBeGreaterThanOrEqual(headerBottom.y + headerBottom.height);

    // An empty file is said to be empty, never "Ready: 0 characters of text".
    await page.getByTestId('file-input').setInputFiles({ name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) });
    await expect(page.getByTestId('agent-view').last()).toHaveText('Partly: the file is empty; only its name is sent', { timeout: 15_000 });
  });
}
