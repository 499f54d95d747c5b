/// <reference lib="dom" />
// Test fixtures: the server's details and a page that has been through the token link (so it holds the
// access cookie), plus helpers that drive the UI the way a person would.
import { expect, test as base, type Page } from '@playwright/test';
import { serverInfo, type ServerInfo } from './helpers/server.js';

export const test = base.extend<{ server: ServerInfo; app: Page }>({
  // eslint-disable-next-line no-empty-pattern
  server: async ({}, use) => {
    await use(serverInfo());
  },
  app: async ({ page, server }, use) => {
    await page.goto(`${server.base}/?token=${server.token}`);
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await use(page);
  },
});

export { expect };

/** Create a session in the trusted test workspace through the New session dialog; returns its id. */
export async function newSession(page: Page, workspace: string): Promise<string> {
  await page.getByTestId('new-session').click();
  const dialog = page.getByTestId('new-session-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByTestId('workspace-select').selectOption(workspace);
  return createSession(page, workspace);
}

/**
 * Press Create in the open New session dialog and wait until the new session is the one shown; returns its id.
 * The page opens the newest session when it loads, so until then the header's buttons (Rename among them)
 * act on an older session left by an earlier test.
 */
export async function createSession(page: Page, workspace: string): Promise<string> {
  const before = new URL(page.url()).hash;
  const dialog = page.getByTestId('new-session-dialog');
  await dialog.getByTestId('create-session').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('session-workspace')).toHaveText(`Workspace: ${workspace}`);
  await expect.poll(() => new URL(page.url()).hash).not.toBe(before);
  await expect(page).toHaveURL(/#s=[0-9a-f]{12}$/);
  const id = new URL(page.url()).hash.replace('#s=', '');
  await expect(page.locator(`[data-testid="session-item"][data-session-id="${id}"]`)).toHaveAttribute('aria-current', 'page');
  return id;
}

/** Throttle this page's uploads (Chromium's network emulation also paces request bodies). */
export async function throttleUploads(page: Page, bytesPerSecond: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
}

/** Record every text the attachment chips' byte counters show, from now on. */
export async function recordProgress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __progress: string[] };
    w.__progress = [];
    new MutationObserver(() => {
      for (const el of Array.from(document.querySelectorAll('[data-testid="attachment-bytes"]'))) {
        const t = el.textContent ?? '';
        if (w.__progress[w.__progress.length - 1] !== t) w.__progress.push(t);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

export function progressSeen(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __progress: string[] }).__progress);
}
