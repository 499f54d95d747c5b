/// <reference lib="dom" />
// Message tools (issue 24): a copy button on every message (the reply's Markdown source, the person's typed
// text) and on every code block (the code only), code coloured by language (highlight.js) and math typeset by
// KaTeX, both loaded from the app's own server only once a block is on screen, with no policy violation.
import { test as base, expect, type Page } from '@playwright/test';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { configureAgent, openApp } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';
import { newSession } from './fixtures.js';

const KEY = 'sk-message-tools-key';
const CODE = 'def area(r):\n    return 3.14 * r ** 2  # <img src=x onerror=alert(1)>';
const REPLY = [
  'Einstein wrote $E = mc^2$, and it costs $5 and $10.',
  '',
  '```python',
  CODE,
  '```',
  '',
  '$$',
  '\\vec{v} = \\frac{d\\vec{x}}{dt}',
  '$$',
  '',
  'Not a link: $\\href{javascript:alert(1)}{click}$',
].join('\n');

const test = base.extend<{ app: Page }>({});
let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});

test('copy, highlighted code and math in a reply, nothing loaded before it is needed, no policy violation', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sample}`));
  });
  const vendor: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/vendor/')) vendor.push(new URL(r.url()).pathname);
  });

  await openApp(page, server);
  await configureAgent(page, agent, KEY);
  await newSession(page, server.workspace);
  // Nothing of either library is fetched for a page without code or math.
  expect(vendor).toEqual([]);

  agent.next(reply(REPLY));
  await page.getByTestId('composer-input').fill('Explain *this*');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('streaming')).toHaveCount(0);
  const answer = page.getByTestId('message').filter({ has: page.getByTestId('assistant-text') }).last();

  // Math: KaTeX's markup, the prices left as text, \href inert.
  const inline = answer.getByTestId('math').first();
  await expect(inline.locator('.katex')).toHaveCount(1);
  await expect(inline.locator('annotation')).toHaveText('E = mc^2');
  await expect(answer.getByTestId('assistant-text')).toContainText('it costs $5 and $10.');
  await expect(answer.locator('.math-display .katex-display')).toHaveCount(1);
  await expect(answer.locator('a[href^="javascript"], [href*="javascript"]')).toHaveCount(0);
  // KaTeX's fonts come from the app's server: the glyphs are drawn in KaTeX_Main, not a fallback.
  await expect.poll(() => page.evaluate(() => document.fonts.check('16px KaTeX_Main'))).toBe(true);

  // Code: token spans with highlight.js classes; the HTML in its comment is text.
  const code = answer.locator('[data-testid="code-block"] code');
  await expect(code).toHaveAttribute('data-highlighted', 'python');
  await expect(code.locator('span.hljs-keyword').first()).toHaveText('def');
  await expect(code.locator('span.hljs-comment')).toHaveText('# <img src=x onerror=alert(1)>');
  await expect(code).toHaveText(CODE);
  await expect(answer.locator('img')).toHaveCount(0);

  // Copy the code block: the code only.
  const copyCode = answer.getByTestId('copy-code');
  await expect(copyCode).toHaveAttribute('aria-label', 'Copy code');
  await copyCode.click();
  await expect(copyCode).toContainText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);

  // Copy the reply: its Markdown source as the agent wrote it.
  const copyReply = answer.getByTestId('copy-message');
  await expect(copyReply).toHaveAttribute('aria-label', 'Copy reply');
  await copyReply.click();
  await expect(copyReply).toContainText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(REPLY);

  // Copy the person's message: as typed (not rendered: the stars stay).
  const mine = page.locator('[data-testid="message"][data-role="user"]').last();
  await mine.getByTestId('copy-message').click();
  await expect(mine.getByTestId('copy-message')).toContainText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Explain *this*');

  // Only the core, one grammar and the language table of highlight.js were loaded, from this server.
  expect(vendor.filter((p) => p.startsWith('/vendor/hljs/languages/'))).toEqual(['/vendor/hljs/languages/python.min.js']);
  expect(vendor).toContain('/vendor/katex/katex.mjs');

  // After a reload the stored reply is drawn the same way.
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('[data-testid="math"] .katex').first()).toBeVisible();
  await expect(page.locator('code[data-highlighted="python"] .hljs-keyword').first()).toHaveText('def');

  expect(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);
});
