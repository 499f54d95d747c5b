/// <reference lib="dom" />
// Issue 36's "Done means", as a person meets it in Chromium: attach a PDF, ask, ask a follow-up about page 2,
// Regenerate, switch the conversation to a second agent (Hermes' gateway) and ask again — each time the request
// the agent receives holds page 2's text, and the PDF's chip says what the last turn sent of it; upload a folder
// into the workspace panel and ask what is in it — the request holds its listing; and no request body, to either
// agent, holds a local path (the state folder, the home folder, the workspace's absolute path).
// The first agent is the OpenAI-compatible fake (server/testing/fake-agent.ts, which records every request). The
// second is the real Hermes gateway when SATCHEL_E2E_HERMES_URL (and SATCHEL_E2E_HERMES_KEY) name one
// (/work/shared/tools/hermes-gateway.sh start), else the fake speaking Hermes' dialect; either way behind a
// recording relay (helpers/recording-proxy.ts), so what Satchel sent it is read back whole.
// Its own server (it configures agents).
import { test, expect, type Page } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reply, startFakeAgent, type FakeAgent } from '../server/testing/fake-agent.js';
import { completionRequests, configureAgent, openApp } from './helpers/chat.js';
import { startRecordingProxy, type RecordingProxy } from './helpers/recording-proxy.js';
import { startServer, type RunningServer } from './helpers/server.js';

const KEY = 'sk-files-stay-0123456789abcdef';
const HERMES_URL = process.env.SATCHEL_E2E_HERMES_URL;
const HERMES_KEY = process.env.SATCHEL_E2E_HERMES_KEY ?? KEY;
/** The GPL 3 as LibreOffice made it a PDF (bench/corpus/context/README.md): 11 pages, about 35,000 characters. */
const PDF = path.resolve('bench/corpus/context/gpl-3-license.pdf');
const PDF_NAME = 'gpl-3-license.pdf';
/** Verbatim from page 2 only (its definitions of "convey" and "Copyright"). */
const PAGE_2 = ['with no transfer of a copy, is not conveying', 'such as semiconductor masks'];
/** A turn with the real gateway runs its agent loop (fake model behind it): slower than the fake. */
const TURN_TIMEOUT_MS = 60_000;

let server: RunningServer;
let openai: FakeAgent;
let hermesFake: FakeAgent | undefined;
let hermes: RecordingProxy;
let workspace: string;

test.describe.configure({ mode: 'serial' });
test.setTimeout(180_000);

test.beforeAll(async () => {
  openai = await startFakeAgent({ apiKey: KEY });
  if (!HERMES_URL) hermesFake = await startFakeAgent({ apiKey: HERMES_KEY, hermes: true });
  hermes = await startRecordingProxy(HERMES_URL ?? hermesFake!.baseUrl);
  server = await startServer();
  workspace = path.join(server.workspace, 'quarterly');
  fs.mkdirSync(workspace);
});

test.afterAll(async () => {
  await server?.stop();
  await hermes?.close();
  await Promise.all([openai?.close(), hermesFake?.close()]);
});

/** A request's text as the model reads it: every message's content, parts joined, whitespace folded. */
function modelText(body: unknown): string {
  const messages = (body as { messages?: { content: unknown }[] } | undefined)?.messages ?? [];
  const texts = messages.flatMap((m) =>
    typeof m.content === 'string' ? [m.content] : Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? '') : [],
  );
  return texts.join('\n').replace(/\s+/g, ' ');
}

/** Page 2's phrases the request lacks (a failure names them, not the whole request). */
function expectPage2(body: unknown): void {
  const text = modelText(body);
  expect(PAGE_2.filter((phrase) => !text.includes(phrase))).toEqual([]);
}

/** The chat completions the gateway was sent (Satchel's own requests to it: its health and capabilities aside). */
function hermesTurns(): unknown[] {
  return hermes.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions')).map((r) => JSON.parse(r.body) as unknown);
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('composer-input').fill(text);
  await page.getByTestId('send').click();
}

async function settled(page: Page): Promise<void> {
  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: TURN_TIMEOUT_MS });
}

/** The PDF's chip on the message that carried it, and what it says of the last turn. */
async function expectChipSaysWhole(page: Page): Promise<void> {
  const chip = page.getByTestId('message').filter({ has: page.locator(`[data-testid="message-attachment"]`) }).first().getByTestId('chip-context');
  await expect(chip).toHaveAttribute('data-state', 'whole');
  await expect(chip).toHaveText('Last turn: whole');
  // The header line over the thread says the same of the conversation (one document in it).
  await expect(page.getByTestId('context-summary')).toHaveText('The agent has the one document whole');
}

test('a PDF stays with the conversation: its page 2 reaches the agent on every later turn, Regenerate and another agent too', async ({ page }) => {
  await openApp(page, server);
  await configureAgent(page, openai, KEY);
  // A conversation on a folder of its own inside the trusted workspace (the workspace panel's test below).
  await page.getByTestId('new-session').click();
  const dialog = page.getByTestId('new-session-dialog');
  await dialog.getByTestId('add-folder').click();
  await page.getByTestId('prompt-input').fill(workspace);
  await page.getByTestId('prompt-ok').click();
  await expect(dialog.getByTestId('workspace-select')).toHaveValue(workspace);
  await dialog.getByTestId('create-session').click();
  await expect(page.getByTestId('session-workspace')).toHaveText(`Workspace: ${workspace}`);

  await page.getByTestId('file-input').setInputFiles(PDF);
  await expect(page.locator(`[data-testid="attachment-chip"][data-filename="${PDF_NAME}"]`)).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  openai.next(reply('It is the GNU General Public License, version 3.'));
  await send(page, 'What is this document?');
  await expect(page.getByTestId('assistant-text').last()).toHaveText('It is the GNU General Public License, version 3.', { timeout: TURN_TIMEOUT_MS });
  await settled(page);
  expectPage2(completionRequests(openai).at(-1)!.body);

  // The follow-up: the PDF was attached one turn ago; page 2 must still be in what the agent reads.
  openai.next(reply('Conveying means enabling others to receive copies.'));
  await send(page, 'On page 2, what does it say conveying a work means?');
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Conveying means enabling others to receive copies.', { timeout: TURN_TIMEOUT_MS });
  await settled(page);
  expectPage2(completionRequests(openai).at(-1)!.body);
  await expectChipSaysWhole(page);

  // Regenerate the follow-up: the same turn again, the PDF still in it.
  const before = completionRequests(openai).length;
  openai.next(reply('It means any propagation that lets others make or receive copies.'));
  await page.getByTestId('message').last().getByTestId('regenerate').click();
  await expect(page.getByTestId('assistant-text').last()).toHaveText('It means any propagation that lets others make or receive copies.', { timeout: TURN_TIMEOUT_MS });
  await settled(page);
  expect(completionRequests(openai).length).toBe(before + 1);
  expectPage2(completionRequests(openai).at(-1)!.body);
  await expectChipSaysWhole(page);

  // A second agent: Hermes' gateway as a saved connection, and this conversation switched to it.
  await page.getByTestId('agent-settings-button').click();
  const agents = page.getByTestId('agent-dialog');
  await agents.getByTestId('agent-connection-add').click();
  await agents.getByTestId('agent-connection-name').fill('Hermes');
  await agents.getByTestId('agent-base-url').fill(hermes.baseUrl);
  await agents.getByTestId('agent-api-key').fill(HERMES_KEY);
  await agents.getByTestId('agent-test').click();
  await expect(agents.getByTestId('agent-model')).not.toHaveValue('', { timeout: 30_000 });
  await agents.getByTestId('agent-save').click();
  await expect(agents).toBeHidden();
  await page.getByTestId('agent-settings-button').click();
  // The dialog opens after two requests; the list items are still in the DOM from the last opening, so wait for
  // the dialog itself before Escape, or the Escape lands before showModal() and the dialog opens after it.
  await expect(agents).toBeVisible();
  const hermesId = (await agents.getByTestId('agent-connection-item').nth(1).getAttribute('data-id'))!;
  await page.keyboard.press('Escape');
  await expect(agents).toBeHidden();
  await page.getByTestId('session-connection').selectOption(hermesId);

  const hermesBefore = hermesTurns().length;
  hermesFake?.next(reply('Copyright also covers semiconductor masks.'));
  await send(page, 'And what other kinds of works does its definition of Copyright cover?');
  await expect(page.getByTestId('assistant-text')).toHaveCount(3, { timeout: TURN_TIMEOUT_MS });
  await settled(page);
  expect(hermesTurns().length).toBeGreaterThan(hermesBefore);
  // The gateway had never seen this conversation: it is sent what any agent is, the PDF's page 2 included.
  expectPage2(hermesTurns()[hermesBefore]);
  await expectChipSaysWhole(page);
});

test('a folder uploaded into the workspace panel reaches the agent as a listing; no request holds a local path', async ({ page }) => {
  await openApp(page, server);
  await expect(page.getByTestId('session-workspace')).toHaveText(`Workspace: ${workspace}`);
  const src = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-files-stay-'));
  const folder = path.join(src, 'receipts-2026');
  fs.mkdirSync(path.join(folder, 'march'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'hotel-lisbon.txt'), 'Hotel Lisbon, 3 nights, 412 EUR\n');
  fs.writeFileSync(path.join(folder, 'march', 'train-porto.txt'), 'Train to Porto, 38 EUR\n');
  try {
    await page.getByTestId('ws-folder-input').setInputFiles(folder);
    await expect(page.locator('[data-testid="ws-result"][data-status="done"]')).toHaveCount(2);
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
  expect(fs.readFileSync(path.join(workspace, 'receipts-2026', 'march', 'train-porto.txt'), 'utf8')).toBe('Train to Porto, 38 EUR\n');

  const hermesBefore = hermesTurns().length;
  hermesFake?.next(reply('Two receipts: a hotel in Lisbon and a train to Porto.'));
  await send(page, 'What is in my workspace?');
  await expect(page.getByTestId('assistant-text')).toHaveCount(4, { timeout: TURN_TIMEOUT_MS });
  await settled(page);
  const asked = modelText(hermesTurns()[hermesBefore]);
  // The listing names the folder and both files by their place in the workspace, never by an absolute path.
  expect(['quarterly', 'receipts-2026', 'hotel-lisbon.txt', 'train-porto.txt'].filter((name) => !asked.includes(name))).toEqual([]);

  // Every request either agent was sent: no local path in any body.
  const bodies = [...completionRequests(openai).map((r) => JSON.stringify(r.body)), ...hermes.requests.map((r) => r.body)];
  expect(bodies.length).toBeGreaterThanOrEqual(5);
  const local = [server.stateDir, workspace, path.dirname(server.stateDir), os.homedir() + '/', os.tmpdir() + '/'];
  // JSON escapes "/" only optionally; both spellings are looked for. A failure lists each request and path found.
  const found = bodies.flatMap((body, i) => local.filter((p) => body.includes(p) || body.includes(p.replaceAll('/', '\\/'))).map((p) => `request ${i}: ${p}`));
  expect(found).toEqual([]);
});
