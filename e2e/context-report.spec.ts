/// <reference lib="dom" />
// The person always sees what the agent has (issue 36): each chip in the thread says what the agent had of its
// document in the last turn, a line over the thread sums it up and opens the list of every document, and the
// composer warns before a turn that would no longer send whole a document the last turn sent whole.
// Its own server, started over a state folder holding conversations whose user rows carry a turn's report (as
// the server stores it), and its own fake agent. The last test runs a real turn and asks the real
// POST /api/chat/context: it needs the server's part of issue 36 (the `context` frame and row, the preview).
import AxeBuilder from '@axe-core/playwright';
import { test, expect, type Page } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { reply, startFakeAgent, type FakeAgent } from '../server/testing/fake-agent.js';
import { newSession } from './fixtures.js';
import { openApp } from './helpers/chat.js';
import { startServer, type RunningServer } from './helpers/server.js';

const KEY = 'sk-context-report-key';
/**
 * The last test's budget: a.txt (8,000 characters) fits whole on its own, not beside big.txt (14,000), which
 * leaves it the passage reserve (server/context/plan.ts MIN_PASSAGE_CHARS, 4,000): passages, not left out.
 */
const CONTEXT_CHARS = 20_000;

const REPORTED = 'c0ffee000001';
const HERMES = 'c0ffee000002';
const UNREPORTED = 'c0ffee000003';
const LONG_PDF = 'Quarterly_report_Q3_with_a_rather_long_name.pdf';

let server: RunningServer;
let agent: FakeAgent;

/** Three conversations, as a server of issue 36 stores them: user rows with the report of their turn. */
function seed({ stateDir, workspace }: { stateDir: string; workspace: string }): void {
  fs.mkdirSync(path.join(stateDir, 'sessions'));
  const t = 1_764_370_000;
  const write = (id: string, title: string, rows: (files: (name: string, text: string) => Record<string, unknown>) => Record<string, unknown>[], age: number) => {
    const dir = path.join(stateDir, 'attachments', id);
    fs.mkdirSync(dir, { recursive: true });
    const stored: Record<string, unknown>[] = [];
    const file = (name: string, text: string) => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, text);
      const a = { filename: name, path: p, size: Buffer.byteLength(text), mime: 'text/plain', is_image: false };
      stored.push(a);
      return { kind: 'file', ...a };
    };
    const messages = rows(file);
    const at = new Date((t + age) * 1000).toISOString();
    fs.writeFileSync(path.join(stateDir, 'sessions', `${id}.json`), JSON.stringify({ session_id: id, title, workspace, profile: 'default', created_at: at, updated_at: at, messages, attachments: stored }));
  };
  write(REPORTED, 'Quarterly report', (file) => [
    {
      role: 'user', content: 'Here is the quarterly report and my notes.', timestamp: t,
      attachments: [file('old.txt', 'old\n'), file(LONG_PDF, 'Page one.\fPage two.\fPage three.\n'), file('notes.txt', 'Meeting at ten.\n')],
      context: { documents: [{ name: LONG_PDF, origin: 'attachment', state: 'whole' }, { name: 'notes.txt', origin: 'attachment', state: 'whole' }], summary: 'The agent has 2 of 2 documents whole', via: 'sent' },
    },
    { role: 'assistant', content: 'Thanks: the report covers Q3.', timestamp: t + 5 },
    { role: 'system', content: 'minutes.txt arrived from Downloads', timestamp: t + 60, attachments: [file('minutes.txt', 'Minutes.\n')], arrival: { source: 'folder', from: 'Downloads', last_at: t + 60 } },
    {
      role: 'user', content: 'What does page 2 say?', timestamp: t + 120, attachments: [file('long.txt', 'word '.repeat(300)), file('broken.docx', 'PK\x03\x04 not really')],
      context: {
        documents: [
          { name: 'long.txt', origin: 'attachment', state: 'whole' },
          { name: 'broken.docx', origin: 'attachment', state: 'unreadable', reason: 'its text could not be extracted' },
          { name: 'minutes.txt', origin: 'arrival', state: 'not_sent', reason: 'budget' },
          { name: LONG_PDF, origin: 'attachment', state: 'passages', where: 'pages 2–3' },
          { name: 'notes.txt', origin: 'attachment', state: 'whole' },
          { name: 'src/main.ts', origin: 'workspace', state: 'whole' },
        ],
        summary: 'The agent has 3 of 6 documents whole',
        via: 'sent',
        workspace: { name: 'proj', listed: 12, total: 12, changed: 2 },
      },
    },
    { role: 'assistant', content: 'Page 2 describes the timeline.', timestamp: t + 125 },
  ], 3);
  write(HERMES, 'With Hermes', (file) => [
    { role: 'user', content: 'Read this.', timestamp: t, attachments: [file('a.txt', 'alpha\n')] },
    { role: 'assistant', content: 'Done.', timestamp: t + 5 },
    { role: 'user', content: 'And again?', timestamp: t + 60, context: { documents: [{ name: 'a.txt', origin: 'attachment', state: 'whole' }], summary: 'The agent has 1 of 1 documents whole', via: 'hermes_history' } },
  ], 2);
  write(UNREPORTED, 'Before issue 36', (file) => [{ role: 'user', content: 'An old turn.', timestamp: t, attachments: [file('plain.txt', 'plain\n')] }], 1);
}

test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  agent = await startFakeAgent({ apiKey: KEY });
  server = await startServer({}, seed);
});
test.afterAll(async () => {
  await server?.stop();
  await agent?.close();
});

async function openSession(page: Page, id: string): Promise<void> {
  await openApp(page, server);
  await page.goto(`${server.base}/#s=${id}`);
  await expect(page.getByTestId('session-title')).not.toHaveText('No session');
}

/** The agent, with the budget the last test needs, saved through the settings route; the page loads it again. */
async function connectAgent(page: Page): Promise<void> {
  const status = await page.evaluate(async ({ base, size, key }) => {
    const res = await fetch('/api/agent/settings', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ base_url: base, model: 'fake-model', api_key: key, context_chars: size }) });
    return res.status;
  }, { base: agent.baseUrl, size: CONTEXT_CHARS, key: KEY });
  expect(status).toBe(200);
  await page.reload();
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
}

const chip = (page: Page, name: string) => page.getByTestId('messages').getByTestId('message-attachment').filter({ has: page.locator(`.chip-name:text-is("${name}")`) });

test('each chip of the thread says what the agent had of it in the last turn; one the turn did not list says nothing new', async ({ page }) => {
  await openSession(page, REPORTED);
  const says: [string, string, string][] = [
    [LONG_PDF, 'passages', 'Last turn: passages: pages 2–3'],
    ['notes.txt', 'whole', 'Last turn: whole'],
    ['minutes.txt', 'not_sent', 'Last turn: not sent (budget)'],
    ['long.txt', 'whole', 'Last turn: whole'],
    ['broken.docx', 'unreadable', 'Last turn: not readable: its text could not be extracted'],
  ];
  for (const [name, state, text] of says) {
    const line = chip(page, name).getByTestId('chip-context');
    await expect(line, name).toHaveText(text);
    await expect(line, name).toHaveAttribute('data-state', state);
    // Heard with the chip: its button is described by what its reader gets and by this.
    await expect(chip(page, name).locator('button.chip-open'), name).toHaveAccessibleDescription(new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  }
  // The chip's own line stays: what the agent's reader gets of the file.
  await expect(chip(page, 'notes.txt').getByTestId('agent-view-text')).toHaveText('Ready: 16 characters of text');
  // old.txt was not in the last turn's report: no second line.
  await expect(chip(page, 'old.txt').getByTestId('agent-view-text')).toHaveText('Ready: 4 characters of text');
  await expect(chip(page, 'old.txt').getByTestId('chip-context')).toBeHidden();
  // The sidebar's "Session attachments" are no thread chips: they say what the reader gets, not the last turn.
  await expect(page.getByTestId('session-attachments').getByTestId('chip-context')).toHaveCount(0);
  // Nothing overflows its chip, and Send stays on screen.
  for (const name of [LONG_PDF, 'broken.docx']) {
    const [li, line] = [await chip(page, name).boundingBox(), await chip(page, name).getByTestId('chip-context').boundingBox()];
    expect(line!.x + line!.width, name).toBeLessThanOrEqual(li!.x + li!.width + 0.5);
  }
  await expect(page.getByTestId('send')).toBeInViewport();
});

test('the line over the thread sums it up and opens the list of every document by keyboard; Escape closes it and focus returns', async ({ page }) => {
  await openSession(page, REPORTED);
  const header = page.getByTestId('context-header');
  await expect(header.getByTestId('context-summary')).toHaveText('The agent has 3 of 6 documents whole');
  const toggle = header.getByTestId('context-toggle');
  await expect(toggle).toHaveText('Show documents');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.focus();
  await page.keyboard.press('Enter');
  const list = page.getByTestId('context-list');
  await expect(list).toBeVisible();
  await expect(list).toBeFocused();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(list.getByTestId('context-workspace')).toHaveText('Workspace “proj”: 12 files listed, 2 changed files read');
  await expect(list.getByTestId('context-history')).toHaveCount(0);
  const rows = list.getByTestId('context-item');
  await expect(rows.getByTestId('context-item-name')).toHaveText(['long.txt', 'broken.docx', 'minutes.txt', LONG_PDF, 'notes.txt', 'src/main.ts']);
  await expect(rows.getByTestId('context-item-state')).toHaveText(['whole', 'not readable: its text could not be extracted', 'not sent (budget)', 'passages: pages 2–3', 'whole', 'whole']);
  await expect(rows.getByTestId('context-item-origin')).toHaveText(['attached', 'attached', 'arrived', 'attached', 'attached', 'in the workspace']);
  // Readable in both schemes: no serious accessibility violation in the line, its list or the chips' lines.
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const found = await new AxeBuilder({ page }).include('#context-header').include('.chip-context').analyze();
    expect(found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${scheme}: ${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
  }
  // Tab reaches the list's Close; Escape closes from anywhere in it, and focus goes back to the button.
  await page.keyboard.press('Tab');
  await expect(list.getByTestId('context-close')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(list).toBeHidden();
  await expect(toggle).toBeFocused();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  // Opened again and closed by its Close button: focus goes back too.
  await toggle.click();
  await list.getByTestId('context-close').click();
  await expect(list).toBeHidden();
  await expect(toggle).toBeFocused();
});

test('with Hermes keeping the history the list says so; a conversation no turn reported on shows no line', async ({ page }) => {
  await openSession(page, HERMES);
  await expect(page.getByTestId('context-summary')).toHaveText('The agent has 1 of 1 documents whole');
  await page.getByTestId('context-toggle').click();
  await expect(page.getByTestId('context-history')).toHaveText('Earlier documents are in the agent’s own history: it keeps them as their own turn sent them.');
  await expect(chip(page, 'a.txt').getByTestId('chip-context')).toHaveText('Last turn: whole');
  // Another conversation: the list does not stay open over it, and without a report there is no line at all.
  await page.goto(`${server.base}/#s=${UNREPORTED}`);
  await expect(page.getByTestId('session-title')).toHaveText('Before issue 36');
  await expect(page.getByTestId('context-header')).toBeHidden();
  await expect(chip(page, 'plain.txt').getByTestId('agent-view-text')).toHaveText('Ready: 6 characters of text');
  await expect(chip(page, 'plain.txt').getByTestId('chip-context')).toBeHidden();
});

test('the composer asks what the next turn leaves out while the person types, never in the way; a missing endpoint says nothing', async ({ page }) => {
  await openSession(page, REPORTED);
  await connectAgent(page);
  const asked: string[] = [];
  let answer: { status: number; body: unknown; delayMs?: number } = { status: 404, body: { error: 'Not found' } };
  await page.route('**/api/chat/context', async (route) => {
    asked.push(route.request().postData() ?? '');
    const now = answer;
    if (now.delayMs) await new Promise((r) => setTimeout(r, now.delayMs));
    await route.fulfill({ status: now.status, contentType: 'application/json', body: JSON.stringify(now.body) }).catch(() => undefined);
  });
  const input = page.getByTestId('composer-input');
  const warning = page.getByTestId('context-warning');

  // An older server (404): typing goes on, nothing is said.
  await input.pressSequentially('What is on page 4?', { delay: 15 });
  await expect.poll(() => asked.length).toBe(1);
  expect(JSON.parse(asked[0]!)).toEqual({ session_id: REPORTED, text: 'What is on page 4?', attachments: [] });
  await page.waitForTimeout(300);
  await expect(warning).toBeHidden();

  // A slow answer: the person types on and can send meanwhile; one request at a time.
  answer = {
    status: 200,
    delayMs: 1_500,
    body: { documents: [{ name: 'notes.txt', origin: 'attachment', state: 'passages', where: '1 passage' }], summary: 'The agent has 2 of 6 documents whole', via: 'sent', left_out: ['notes.txt'] },
  };
  await input.pressSequentially(' And the appendix?', { delay: 15 });
  await expect(input).toHaveValue('What is on page 4? And the appendix?');
  await expect(page.getByTestId('send')).toBeEnabled();
  await expect(warning.getByTestId('context-warning-text')).toHaveText('“notes.txt” will no longer be sent whole: the agent gets the passages that match your message.');
  expect(asked).toHaveLength(2);
  await expect(page.getByTestId('send')).toBeInViewport();

  // Dismissed, it stays away while the same document would be left out, and comes back for another.
  await warning.getByTestId('context-warning-dismiss').click();
  await expect(warning).toBeHidden();
  answer = { ...answer, delayMs: 0 };
  await input.pressSequentially(' Thanks.', { delay: 15 });
  await expect.poll(() => asked.length).toBe(3);
  await page.waitForTimeout(300);
  await expect(warning).toBeHidden();
  answer = { status: 200, body: { documents: [], summary: '', via: 'sent', left_out: ['notes.txt', 'long.txt'] } };
  await input.pressSequentially('!', { delay: 15 });
  await expect(warning.getByTestId('context-warning-text')).toHaveText('“notes.txt” and “long.txt” will no longer be sent whole: the agent gets the passages that match your message.');
  // An empty composer has nothing to warn of.
  await input.fill('');
  await expect(warning).toBeHidden();
  await page.unroute('**/api/chat/context');
});

test('a running turn’s context frame speaks for the last turn at once: chips and the line follow it before the turn is stored', async ({ page }) => {
  await openSession(page, REPORTED);
  await connectAgent(page);
  // The turn's start and stream as the server sends them; the stream stays open (no done, no stream_end), so
  // what is on screen is the frame's doing, not a stored row's.
  const stream = 'c0ffee000001-live';
  await page.route('**/api/chat/start', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ stream_id: stream, session_id: REPORTED, pending_started_at: Date.now() / 1000, title: 'Quarterly report' }) }),
  );
  const frame = (seq: number, event: string, data: unknown) => `id: ${stream}:${seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const context = {
    session_id: REPORTED,
    documents: [
      { name: 'notes.txt', origin: 'attachment', state: 'not_sent', reason: 'budget' },
      { name: 'long.txt', origin: 'attachment', state: 'passages', where: '2 passages' },
    ],
    summary: 'The agent has 0 of 2 documents whole',
    via: 'sent',
  };
  await page.route('**/api/chat/stream?*', (route) =>
    route.fulfill({ status: 200, headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' }, body: frame(1, 'context', context) + frame(2, 'token', { text: 'Reading' }) }),
  );
  await page.getByTestId('composer-input').fill('Next question?');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('assistant-live').getByTestId('assistant-text')).toHaveText('Reading');
  await expect(page.getByTestId('context-summary')).toHaveText('The agent has 0 of 2 documents whole');
  await expect(chip(page, 'notes.txt').getByTestId('chip-context')).toHaveText('Last turn: not sent (budget)');
  await expect(chip(page, 'long.txt').getByTestId('chip-context')).toHaveText('Last turn: passages: 2 passages');
  // Not in this turn's report: the line the stored report gave it goes.
  await expect(chip(page, LONG_PDF).getByTestId('chip-context')).toBeHidden();
  await expect(chip(page, 'broken.docx').getByTestId('chip-context')).toBeHidden();
  await page.unrouteAll({ behavior: 'ignoreErrors' });
});

test('a real turn: its chips say what the agent got, and the composer warns before a file whole last turn is cut (needs the server part)', async ({ page }) => {
  await openApp(page, server);
  await connectAgent(page);
  await newSession(page, server.workspace);
  const a = 'The first document talks about herons. '.repeat(200);
  await page.getByTestId('file-input').setInputFiles([{ name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from(a) }]);
  await expect(page.locator('[data-testid="attachment-chip"][data-filename="a.txt"]')).toHaveAttribute('data-status', 'done');
  agent.next(reply('Herons, mostly.'));
  await page.getByTestId('composer-input').fill('What is a.txt about?');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('messages').getByTestId('assistant-text').last()).toHaveText('Herons, mostly.');
  await expect(chip(page, 'a.txt').getByTestId('chip-context')).toHaveText('Last turn: whole');
  await expect(page.getByTestId('context-summary')).toHaveText(/^The agent has (1 of 1 documents?|the one document) whole$/);

  // big.txt takes the budget: a.txt would no longer go whole, and the composer says so before Send.
  await page.getByTestId('file-input').setInputFiles([{ name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.from('Budgets and tables. '.repeat(700)) }]);
  await expect(page.locator('[data-testid="attachment-chip"][data-filename="big.txt"]')).toHaveAttribute('data-status', 'done');
  await page.getByTestId('composer-input').fill('And the budget table?');
  await expect(page.getByTestId('context-warning-text')).toHaveText('“a.txt” will no longer be sent whole: the agent gets the passages that match your message.');
  agent.next(reply('The table is on the last line.'));
  await page.getByTestId('send').click();
  await expect(page.getByTestId('messages').getByTestId('assistant-text').last()).toHaveText('The table is on the last line.');
  await expect(chip(page, 'a.txt').first().getByTestId('chip-context')).toHaveText(/^Last turn: passages/);
  await expect(chip(page, 'big.txt').getByTestId('chip-context')).toHaveText('Last turn: whole');
  await expect(page.getByTestId('context-warning')).toBeHidden();
});
