/// <reference lib="dom" />
// The page's own Content-Security-Policy (the <meta> in renderer/index.html: no 'unsafe-inline', nothing from
// another origin) holds on the main screens: connecting an agent (settings dialog, both tabs), a conversation
// with a Markdown reply (an aligned table, code, a link, a list), reasoning and a tool card, an image attached
// (its blob: thumbnail, then the stored one), the workspace tree and its previews, the theme switch. Chromium
// reports every refused load, script or style as a `securitypolicyviolation` event and a console error; the
// spec collects both from the first byte of every page and expects none. A control first proves the policy is
// enforced and the listener hears it: an inline script and a style attribute are refused (the specification's
// header alone allows both). Its own server and fake agent, so the agent configured here reaches no other spec.
import fs from 'node:fs';
import path from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { contentChunk, reply, toolProgress, type FakeAgent } from '../server/testing/fake-agent.js';
import { configureAgent, openApp } from './helpers/chat.js';
import { buildPng } from './helpers/png.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';
import { buildDocx } from './helpers/zip.js';
import { newSession } from './fixtures.js';

const KEY = 'sk-csp-test-key';
const MARKDOWN_REPLY = [
  '## Findings',
  '',
  '| Item | Count | Share |',
  '|:-----|:-----:|------:|',
  '| apples | 3 | 30 % |',
  '| pears | 7 | 70 % |',
  '',
  '```ts',
  'const total = 10;',
  '```',
  '',
  '- first point with `code`',
  '- see [the docs](https://example.com/docs)',
].join('\n');

const test = base.extend<{ app: Page }>({});
let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});

interface Violation {
  directive: string;
  blocked: string;
  sample: string;
}

/** From now on, every CSP violation of every document this page loads (reloads included), and the console's. */
async function watchPolicy(page: Page): Promise<{ violations(): Promise<Violation[]>; console: string[] }> {
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: Violation[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      w.__csp.push({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample });
    });
  });
  const console: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) console.push(m.text());
  });
  return { violations: () => page.evaluate(() => (window as unknown as { __csp: Violation[] }).__csp.splice(0)), console };
}

test('the policy is the page\'s own and is enforced: an inline script and a style attribute are refused', async ({ page }) => {
  const policy = await watchPolicy(page);
  await openApp(page, server);
  const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(meta).toContain("script-src 'self'");
  expect(meta).not.toContain('unsafe-inline');
  const ran = await page.evaluate(() => {
    const w = window as unknown as { __inlineRan?: boolean };
    const script = document.createElement('script');
    script.textContent = 'window.__inlineRan = true';
    document.body.appendChild(script);
    const probe = document.createElement('div');
    probe.setAttribute('style', 'color: rgb(1, 2, 3)');
    document.body.appendChild(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    script.remove();
    return { script: w.__inlineRan === true, colour };
  });
  expect(ran.script).toBe(false);
  expect(ran.colour).not.toBe('rgb(1, 2, 3)');
  await expect.poll(async () => (await policy.violations()).map((v) => v.directive).sort()).toEqual(['script-src-elem', 'style-src-attr']);
});

test('the main screens cause no policy violation', async ({ page }) => {
  const policy = await watchPolicy(page);
  const seen: Record<string, Violation[]> = {};
  const check = async (screen: string) => {
    const found = await policy.violations();
    if (found.length) seen[screen] = found;
  };

  await openApp(page, server);
  await check('start');

  // Settings: connect the agent (the test lists the models), then the MCP tab.
  await configureAgent(page, agent, KEY);
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await page.getByTestId('agent-tab-mcp').click();
  await expect(page.getByTestId('mcp-panel')).toBeVisible();
  await expect(page.getByTestId('mcp-panel')).toContainText('/mcp');
  await page.getByTestId('mcp-close').click();
  await expect(dialog).toBeHidden();
  await check('settings dialog');

  // Chat: a Markdown reply with reasoning and a tool card.
  await newSession(page, server.workspace);
  // Paced, so the live tool card is on screen for a while (the finished turn keeps only its text).
  const script = reply(MARKDOWN_REPLY, { reasoning: 'Counting the fruit first.', tokensPerSecond: 20 });
  script.frames.splice(2, 0, toolProgress('terminal', 'running', 'call-1', 'ls fruit'), toolProgress('terminal', 'completed', 'call-1', 'ls fruit'), contentChunk(''));
  agent.next(script);
  await page.getByTestId('composer-input').fill('Count the fruit');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('tool-card')).toHaveAttribute('data-status', 'done');
  const answer = page.getByTestId('assistant-text').last();
  await expect(answer.locator('table')).toBeVisible();
  await expect(page.getByTestId('streaming')).toHaveCount(0);
  // The alignment row is honoured through classes (a style attribute would have been refused).
  const aligns = await answer.locator('tbody tr').first().locator('td').evaluateAll((cells) => cells.map((c) => getComputedStyle(c).textAlign));
  expect(aligns).toEqual(['left', 'center', 'right']);
  await expect(answer.locator('pre code')).toHaveText('const total = 10;');
  await check('chat reply');

  // An image attached: its thumbnail is an object URL until sent, then the stored bytes.
  const png = buildPng(48, 32, (x, y) => [x * 5, y * 7, 90]);
  await page.getByTestId('file-input').setInputFiles({ name: 'chart.png', mimeType: 'image/png', buffer: png });
  const chip = page.locator('[data-testid="attachment-chip"][data-filename="chart.png"]');
  await expect(chip).toHaveAttribute('data-status', 'done');
  await expect.poll(() => chip.getByTestId('attachment-thumb').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(48);
  agent.next(reply('A chart.'));
  await page.getByTestId('composer-input').fill('What is this?');
  await page.getByTestId('send').click();
  const sent = page.getByTestId('message').filter({ hasText: 'What is this?' }).getByTestId('attachment-thumb');
  await expect.poll(() => sent.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(48);
  await check('attachments');

  // Previews from the workspace tree: an image, an Office document as Markdown, text.
  const dir = path.join(server.workspace, 'csp-previews');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'chart.png'), png);
  fs.writeFileSync(path.join(dir, 'brief.docx'), await buildDocx('Quarterly brief', 'Revenue grew.'));
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'plain notes\n');
  await page.getByTestId('ws-refresh').click();
  await page.locator('[data-testid="ws-entry"][data-path="csp-previews"] > .tree-row').click();
  for (const name of ['chart.png', 'brief.docx', 'notes.txt']) {
    await page.locator(`[data-testid="ws-entry"][data-path="csp-previews/${name}"] > .tree-row`).click();
    await expect(page.getByTestId('preview-dialog')).toBeVisible();
    await expect(page.getByTestId('md-preview')).toHaveAttribute('data-state', 'ready');
    if (name === 'chart.png') {
      await expect.poll(() => page.getByTestId('preview-image').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(48);
    }
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('preview-dialog')).toBeHidden();
  }
  await check('previews');

  // The other theme, and a reload of the conversation (history rendered from the session).
  await page.getByTestId('theme-toggle').click();
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('assistant-text').first().locator('table')).toBeVisible();
  await check('theme and reload');

  expect(seen).toEqual({});
  expect(policy.console).toEqual([]);
});
