/// <reference lib="dom" />
// Issue 38, items 4 and 6, as a person meets them at 1280×800 and 800×600:
// - a file keeps the name they gave it ("Quarterly report Q3.pdf", "Résumé – Ünïcödé 日本語 файл.txt") in the
//   composer's chip, the sent message, the agent's request and after a reload; the file on disk keeps its safe name;
// - each reply says which agent and model wrote it, after a switch of the conversation's agent and a reload, and
//   "Regenerate with…" (keyboard only) asks another agent and model for that reply only.
// Its own server, so the agents it configures never reach the other specs.
import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { test, expect, type Page } from '@playwright/test';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { completionRequests, configureAgent, lastUserMessage, openApp, partsOf } from './helpers/chat.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { ownServerAndTwoAgents } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';

const KEY_A = 'sk-e2e-names-a-0123456789abcdef';
const KEY_B = 'sk-e2e-names-b-fedcba9876543210';
const REPORT = 'Quarterly report Q3.pdf';
const UNICODE = 'Résumé – Ünïcödé 日本語 файл.txt';
const UNICODE_STORED = 'Résumé___Ünïcödé_日本語_файл.txt';
/** Slow enough that the reply is still streaming while the test looks at it and reloads (about 20 s). */
const SLOW_TOKENS_PER_SECOND = 8;
const SLOW_REPLY = Array.from({ length: 160 }, (_, i) => `word${i}`).join(' ');
/** Each size in one scheme: the wide one light, the small one dark, so both looks are seen and scanned. */
const SIZES = [
  { width: 1280, height: 800, scheme: 'light' },
  { width: 800, height: 600, scheme: 'dark' },
] as const;

let server: RunningServer;
let a: FakeAgent;
let b: FakeAgent;
let second = '';

ownServerAndTwoAgents({ a: KEY_A, b: KEY_B }, (got) => ({ server, a, b } = got));

async function api(pathname: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.base}${pathname}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

/** The app with agent A connected (named "Home box") and agent B saved beside it ("Work box"), once. */
async function ready(page: Page, size: (typeof SIZES)[number]): Promise<void> {
  await page.emulateMedia({ colorScheme: size.scheme });
  await openApp(page, server);
  if (!second) {
    // The agent settings are the sidebar's (a drawer at 800×600): connected once, at the wide size.
    await page.setViewportSize({ width: SIZES[0].width, height: SIZES[0].height });
    await configureAgent(page, a, KEY_A);
    await api('/api/agent/connections', { id: 'main', name: 'Home box', base_url: a.baseUrl, model: 'model-a' });
    second = (await api('/api/agent/connections', { name: 'Work box', base_url: b.baseUrl, api_key: KEY_B, model: 'model-b' })).id as string;
    // The header reads the connections when the agent settings change: a reload shows both.
    await openApp(page, server);
  }
  await page.setViewportSize({ width: size.width, height: size.height });
}

/** A new conversation, shown (made through the API: at 800×600 the list is a drawer, not what is tested here). */
async function newConversation(page: Page): Promise<string> {
  const { session } = (await api('/api/session/new', { workspace: server.workspace })) as { session: { session_id: string } };
  const id = session.session_id;
  await page.goto(`${server.base}/#s=${id}`);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator(`[data-testid="session-item"][data-session-id="${id}"]`)).toHaveAttribute('aria-current', 'page');
  return id;
}

/** Serious and critical axe violations inside `selector` (the new parts only: a whole-page scan is e2e/a11y.spec.ts's). */
async function seriousIn(page: Page, selector: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).include(selector).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(screenshotDir(test.info()), `names-${name}.png`) });
}

for (const size of SIZES) {
  const tag = `${size.width}x${size.height}`;

  test(`${tag}: a file keeps the name it was given in the chip, the message, the agent's request and after a reload`, async ({ page }) => {
    await ready(page, size);
    const id = await newConversation(page);
    await page.getByTestId('file-input').setInputFiles([
      { name: REPORT, mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 a report, not really') },
      { name: UNICODE, mimeType: 'text/plain', buffer: Buffer.from('The résumé text.\n') },
    ]);
    const chips = page.getByTestId('attachment-chip');
    await expect(chips).toHaveCount(2);
    for (const chip of await chips.all()) await expect(chip).toHaveAttribute('data-status', 'done');
    // The composer's chips: the given names, not `Quarterly_report_Q3.pdf`.
    await expect(chips.locator('.chip-name')).toHaveText([REPORT, UNICODE]);
    await expect(chips.nth(1)).toHaveAttribute('data-filename', UNICODE_STORED);
    a.next(reply('Got both.'));
    await page.getByTestId('composer-input').fill('Here are the files');
    await page.getByTestId('send').click();
    const sent = page.getByTestId('message').filter({ hasText: 'Here are the files' });
    await expect(sent.getByTestId('message-attachment')).toHaveCount(2);
    await expect(sent.locator('.chip-name')).toHaveText([REPORT, UNICODE]);
    await expect(page.getByTestId('assistant-text').last()).toHaveText('Got both.');
    // The agent was told the names the person gave.
    const told = partsOf(lastUserMessage(completionRequests(a).at(-1))).map((p) => p.text ?? '').join('\n');
    expect(told).toContain(`"${UNICODE}"`);
    expect(told).toContain(`"${REPORT}"`);
    expect(told).not.toContain(UNICODE_STORED);
    // On disk: the specification's safe names.
    expect(fs.readdirSync(path.join(server.stateDir, 'attachments', id)).filter((n) => !n.startsWith('.')).sort()).toEqual(['Quarterly_report_Q3.pdf', UNICODE_STORED].sort());
    await shot(page, `files-${tag}`);
    // A reload shows the same names.
    await page.reload();
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    const again = page.getByTestId('message').filter({ hasText: 'Here are the files' });
    await expect(again.locator('.chip-name')).toHaveText([REPORT, UNICODE]);
    // The whole name is there on hover.
    await expect(again.getByTestId('message-attachment').nth(1)).toHaveAttribute('title', UNICODE);
  });

  test(`${tag}: each reply says which agent and model wrote it; Regenerate with… another one, by keyboard`, async ({ page }) => {
    await ready(page, size);
    await newConversation(page);
    a.next(reply('Hello from home.'));
    await page.getByTestId('composer-input').fill('Hello?');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('assistant-text').last()).toHaveText('Hello from home.');
    const replies = page.locator('[data-testid="message"][data-role="assistant"]');
    await expect(replies.last().getByTestId('answered-by')).toHaveText('Home box · model-a');

    // The conversation switched to the other agent: its replies say so, the earlier one keeps its own.
    const picker = page.getByTestId('session-connection');
    await expect(picker).toBeVisible();
    await picker.selectOption(second);
    await expect(picker).toHaveValue(second);
    b.next(reply('Hello from work.'));
    await page.getByTestId('composer-input').fill('And you?');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('assistant-text').last()).toHaveText('Hello from work.');
    await expect(replies.getByTestId('answered-by')).toHaveText(['Home box · model-a', 'Work box · model-b']);
    await page.reload();
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await expect(replies.getByTestId('answered-by')).toHaveText(['Home box · model-a', 'Work box · model-b']);
    await shot(page, `answered-by-${tag}`);
    expect(await seriousIn(page, '[data-testid="message"][data-role="assistant"]')).toEqual([]);

    // Regenerate with… the home agent, keyboard only: the button, the dialog's two pickers, Enter.
    const withButton = replies.last().getByTestId('regenerate-with');
    await withButton.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByTestId('regenerate-dialog');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId('regenerate-connection')).toBeFocused();
    await expect(dialog.getByTestId('regenerate-connection')).toHaveValue(second);
    await expect(dialog.getByTestId('regenerate-model').locator('option')).toHaveText(['Its default (model-b)', 'model-b', 'model-b-large']);
    await dialog.getByTestId('regenerate-model').focus();
    await dialog.getByTestId('regenerate-model').selectOption('model-b-large');
    await shot(page, `regenerate-with-${tag}`);
    expect(await seriousIn(page, '[data-testid="regenerate-dialog"]')).toEqual([]);
    const before = completionRequests(b).length;
    b.next(reply('Hello again, larger.'));
    await dialog.getByTestId('regenerate-ok').focus();
    await page.keyboard.press('Enter');
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('assistant-text').last()).toHaveText('Hello again, larger.');
    await expect(replies.last().getByTestId('answered-by')).toHaveText('Work box · model-b-large');
    expect((completionRequests(b).slice(before)[0]?.body as { model?: string }).model).toBe('model-b-large');
    // That reply only: the conversation's agent and model are as its header set them.
    await expect(picker).toHaveValue(second);
    await expect(page.getByTestId('session-model')).toHaveValue('');

    // Another agent altogether, this time the home one.
    await replies.last().getByTestId('regenerate-with').click();
    await dialog.getByTestId('regenerate-connection').selectOption('main');
    await expect(dialog.getByTestId('regenerate-model').locator('option')).toHaveText(['Its default (model-a)', 'model-a']);
    a.next(reply('Home again.'));
    await dialog.getByTestId('regenerate-ok').click();
    await expect(page.getByTestId('assistant-text').last()).toHaveText('Home again.');
    await expect(replies.last().getByTestId('answered-by')).toHaveText('Home box · model-a');
    // Escape closes the dialog without a turn.
    const turns = completionRequests(a).length + completionRequests(b).length;
    await replies.last().getByTestId('regenerate-with').click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    expect(completionRequests(a).length + completionRequests(b).length).toBe(turns);
  });

  test(`${tag}: the reply says who answers while it streams, not only once it is stored`, async ({ page }) => {
    test.setTimeout(150_000);
    await ready(page, size);
    await newConversation(page);
    const live = page.getByTestId('assistant-live');
    a.next(reply(SLOW_REPLY, { tokensPerSecond: SLOW_TOKENS_PER_SECOND }));
    await page.getByTestId('composer-input').fill('Tell me slowly.');
    await page.keyboard.press('Enter');
    await expect(live.getByTestId('assistant-text')).toContainText('word2');
    await expect(live).toHaveAttribute('data-status', 'streaming');
    await expect(live.getByTestId('answered-by')).toHaveText('Home box · model-a');
    await expect(live.getByTestId('answered-by')).toHaveAttribute('title', 'Written by Home box, model model-a');
    // A reload mid-reply picks the turn up again, and says it again.
    await page.reload();
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await expect(live).toHaveAttribute('data-status', 'streaming');
    await expect(live.getByTestId('answered-by')).toHaveText('Home box · model-a');
    await shot(page, `answered-by-live-${tag}`);
    expect(await seriousIn(page, '[data-testid="assistant-live"]')).toEqual([]);
    const replies = page.locator('[data-testid="message"][data-role="assistant"]');
    await expect(replies.last().getByTestId('assistant-text')).toHaveText(SLOW_REPLY, { timeout: 60_000 });
    await expect(replies.last().getByTestId('answered-by')).toHaveText('Home box · model-a');

    // Switched to the other agent: the next reply says so from its first word.
    await page.getByTestId('session-connection').selectOption(second);
    b.next(reply(SLOW_REPLY, { tokensPerSecond: SLOW_TOKENS_PER_SECOND }));
    await page.getByTestId('composer-input').fill('And you, slowly?');
    await page.keyboard.press('Enter');
    await expect(live.getByTestId('assistant-text')).toContainText('word2');
    await expect(live).toHaveAttribute('data-status', 'streaming');
    await expect(live.getByTestId('answered-by')).toHaveText('Work box · model-b');
    await page.getByTestId('stop').click();
    await expect(live).toHaveCount(0, { timeout: 30_000 });
    await expect(replies.last().getByTestId('answered-by')).toHaveText('Work box · model-b');
  });
}
