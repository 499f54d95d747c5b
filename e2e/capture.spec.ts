/// <reference lib="dom" />
// Issue 26, "Quick capture", as a person uses the window the desktop shell opens (the page at /capture, with the
// main window's cookie): text to the current conversation, a pasted screenshot, a dropped file, dictation with
// the fake microphone (click and the F8 hold), Esc keeping the draft for the next opening, and "Ask the agent"
// with its reply streaming in the main window. Its own server and agent: the agent it configures never reaches
// the other specs. (The Inbox destination needs the Inbox conversation: server/handlers/capture.test.ts.)
import AxeBuilder from '@axe-core/playwright';
import { test, expect, type BrowserContext, type Page } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reply, startFakeAgent, type FakeAgent } from '../server/testing/fake-agent.js';
import { storedSession } from '../server/testing/stored-session.js';
import { completionRequests, configureAgent, lastUserMessage, openApp, partsOf } from './helpers/chat.js';
import { shownNames } from './helpers/fs.js';
import { KNOWN_SENTENCE, KNOWN_SENTENCE_WORDS, micBrowser, skipWithoutSpeechTools, skipWithoutTranscription } from './helpers/mic.js';
import { buildPng } from './helpers/png.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { startServer, type RunningServer } from './helpers/server.js';
import { speechWav } from './helpers/speech.js';

const KEY = 'sk-capture-e2e-key';
/** The quick-capture window's size as the shell opens it (small, always on top). */
const CAPTURE_VIEWPORT = { width: 560, height: 440 };

let server: RunningServer;
let agent: FakeAgent;
let context: BrowserContext;
let main: Page;
let targetId: string;

test.describe.configure({ mode: 'serial' });
test.beforeAll(async ({ browser }) => {
  agent = await startFakeAgent({ apiKey: KEY });
  server = await startServer();
  context = await browser.newContext();
  main = await context.newPage();
  await openApp(main, server);
  await configureAgent(main, agent, KEY);
  targetId = await main.evaluate(async () => {
    const post = (p: string, body: unknown) => fetch(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
    const { session } = await post('/api/session/new', {});
    await post('/api/session/rename', { session_id: session.session_id, title: 'Reading list' });
    return session.session_id as string;
  });
  await main.goto(`${server.base}/#s=${targetId}`);
  await expect(main.getByTestId('app')).toHaveAttribute('data-ready', 'true');
});
test.afterEach(() => {
  expect(policyErrors).toEqual([]);
});
test.afterAll(async () => {
  await context?.close();
  await server?.stop();
  await agent?.close();
});

/** The capture window as the shell opens it: a second page of the same browser (the same cookie). */
async function openCapture(query = ''): Promise<Page> {
  // Opened by the main window's script, so it may close itself (a browser keeps other tabs from doing so).
  const [page] = await Promise.all([
    context.waitForEvent('page'),
    main.evaluate(([url, w, h]) => void window.open(url, '_blank', `popup,width=${w},height=${h}`), [`/capture${query}`, CAPTURE_VIEWPORT.width, CAPTURE_VIEWPORT.height] as const),
  ]);
  await page.setViewportSize(CAPTURE_VIEWPORT);
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) policyErrors.push(m.text());
  });
  await expect(page.getByTestId('capture')).toHaveAttribute('data-ready', 'true');
  return page;
}

/** Every CSP refusal any capture window reported on its console: the page needs nothing its policy refuses. */
const policyErrors: string[] = [];

const chip = (page: Page, name: string | RegExp) =>
  typeof name === 'string' ? page.locator(`[data-testid="attachment-chip"][data-filename="${name}"]`) : page.getByTestId('attachment-chip').filter({ hasText: name });
/** The conversation's messages as the server stores them (its own read-only connection to the database). */
const storedMessages = async (id: string) => (await storedSession(server.stateDir, id))!.messages as unknown as { role: string; content: string; attachments?: { filename: string }[] }[];

test('text goes to the current conversation and shows in the main window', async () => {
  const page = await openCapture();
  await expect(page.getByTestId('destination-current')).toBeChecked();
  await expect(page.locator('#destination-current-label')).toHaveText('Current conversation: Reading list');
  await expect(page.getByTestId('destination-inbox')).toBeEnabled();
  await expect(page.getByTestId('send')).toBeDisabled();
  await page.getByTestId('capture-input').fill('Read the Moonshine paper');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('capture-notice')).toHaveText('Sent to “Reading list”.');
  await expect(page.getByTestId('capture-input')).toHaveValue('');
  await expect(main.getByTestId('message-text').last()).toHaveText('Read the Moonshine paper');
  await page.close();
});

test('a pasted screenshot and a dropped file are staged as chips and sent with the text', async () => {
  const page = await openCapture(`?session=${targetId}`);
  const png = buildPng(24, 16, (x) => [x * 10, 80, 200]);
  await page.getByTestId('capture-input').focus();
  await page.evaluate((bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], 'image.png', { type: 'image/png' }));
    document.querySelector('[data-testid="capture-input"]')?.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, [...png]);
  const pasted = page.locator('[data-testid="attachment-chip"][data-filename^="pasted-"]');
  await expect(pasted).toHaveAttribute('data-status', 'done');
  await expect(pasted.getByTestId('attachment-thumb')).toBeVisible();
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['dropped notes'], 'notes.txt', { type: 'text/plain' }));
    const target = document.querySelector('[data-testid="capture-input"]');
    for (const type of ['dragenter', 'dragover', 'drop']) target?.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
  });
  await expect(chip(page, 'notes.txt')).toHaveAttribute('data-status', 'done');
  // The chips say what the agent will get, as in the composer.
  await expect(chip(page, 'notes.txt').getByTestId('agent-view')).toContainText(/./);
  await page.getByTestId('capture-input').fill('Two things');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('capture-notice')).toHaveText('Sent to “Reading list”.');
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
  const last = (await storedMessages(targetId)).at(-1)!;
  expect(last.content).toBe('Two things');
  const names = (last.attachments ?? []).map((a) => a.filename);
  expect(names).toHaveLength(2);
  expect(names[0]).toMatch(/^pasted-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.png$/);
  expect(names[1]).toBe('notes.txt');
  const dir = path.join(server.stateDir, 'attachments', targetId);
  expect(fs.readFileSync(path.join(dir, names[0]!)).equals(png)).toBe(true);
  expect(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('dropped notes');
  await page.close();
});

test('Esc closes the window and keeps the draft; opening it again restores text, chip and destination', async ({}, info) => {
  const page = await openCapture();
  await page.getByTestId('capture-input').fill('Half a thought');
  await page.getByTestId('file-input').setInputFiles({ name: 'receipt.txt', mimeType: 'text/plain', buffer: Buffer.from('total 12.50') });
  await expect(chip(page, 'receipt.txt')).toHaveAttribute('data-status', 'done');
  await page.getByTestId('destination-ask').check();
  // The shell's preload listens for this event on the window; here the test does.
  let told = false;
  await page.exposeFunction('captureCloseSeen', () => (told = true));
  await page.evaluate(() => window.addEventListener('satchel:capture-close', () => void (window as unknown as { captureCloseSeen(): void }).captureCloseSeen()));
  const closed = page.waitForEvent('close');
  await page.keyboard.press('Escape');
  await closed;
  expect(told).toBe(true);

  const again = await openCapture();
  await expect(again.getByTestId('capture-input')).toHaveValue('Half a thought');
  await expect(chip(again, 'receipt.txt')).toHaveAttribute('data-status', 'done');
  await expect(again.getByTestId('destination-ask')).toBeChecked();
  // The same stored file, staged in the current conversation and in no message yet.
  expect(shownNames(path.join(server.stateDir, 'attachments', targetId))).toContain('receipt.txt');
  await again.getByTestId('destination-current').check();
  // Readable by a screen reader and by contrast, light and dark.
  for (const scheme of ['dark', 'light'] as const) {
    await again.emulateMedia({ colorScheme: scheme });
    const scan = await new AxeBuilder({ page: again }).analyze();
    expect(scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${scheme} ${v.id}`)).toEqual([]);
  }
  await again.screenshot({ path: path.join(screenshotDir(info), 'quick-capture.png') });
  // Taken off: its stored file goes, and the kept draft with it.
  await chip(again, 'receipt.txt').getByTestId('attachment-cancel').click();
  await expect.poll(() => shownNames(path.join(server.stateDir, 'attachments', targetId)).includes('receipt.txt')).toBe(false);
  await again.getByTestId('capture-input').fill('');
  await again.close();
});

test('"Ask the agent" starts a new conversation; the reply streams in the main window', async () => {
  agent.next(reply('Lisbon is the capital of Portugal.'));
  const before = completionRequests(agent).length;
  const page = await openCapture();
  await page.getByTestId('destination-ask').check();
  await page.getByTestId('capture-input').fill('What is the capital of Portugal?');
  await page.getByTestId('capture-input').press('Enter');
  await expect(page.getByTestId('capture-notice')).toHaveText('Asked the agent: the reply appears in the Satchel window.');
  await expect.poll(() => completionRequests(agent).length).toBe(before + 1);
  expect(partsOf(lastUserMessage(completionRequests(agent).at(-1))).map((p) => p.text).join('')).toContain('What is the capital of Portugal?');
  // The main window moved to the new conversation and shows the question and the reply.
  await expect.poll(() => new URL(main.url()).hash).not.toBe(`#s=${targetId}`);
  await expect(main.getByTestId('message-text').first()).toHaveText('What is the capital of Portugal?');
  await expect(main.getByText('Lisbon is the capital of Portugal.')).toBeVisible();
  await page.close();
});

test('dictation: the microphone button and the held F8 key record, the transcript lands in the field', async () => {
  skipWithoutSpeechTools('capture/dictation');
  const wavDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-wav-'));
  const wav = path.join(wavDir, 'known.wav');
  speechWav(KNOWN_SENTENCE, wav);
  const mic = await micBrowser(wav);
  try {
    const page = mic.ctx.pages()[0] ?? (await mic.ctx.newPage());
    await page.setViewportSize(CAPTURE_VIEWPORT);
    await page.goto(`${server.base}/capture?token=${server.token}`);
    await expect(page).toHaveURL(`${server.base}/capture`);
    await expect(page.getByTestId('capture')).toHaveAttribute('data-ready', 'true');
    await skipWithoutTranscription(page, 'capture/dictation');
    await page.getByTestId('capture-input').fill('Note:');
    const button = page.getByTestId('mic-button');
    await button.click();
    await expect(page.getByTestId('recording-indicator')).toBeVisible();
    await expect(page.getByTestId('recording-elapsed')).toHaveText('0:05', { timeout: 10_000 });
    await button.click();
    await expect(button).toHaveAttribute('data-state', 'idle', { timeout: 30_000 });
    await expect(page.getByTestId('recording-indicator')).toBeHidden();
    const value = (await page.getByTestId('capture-input').inputValue()).toLowerCase();
    expect(value.startsWith('note: ')).toBe(true);
    for (const word of KNOWN_SENTENCE_WORDS) expect(value, value).toContain(word);

    // Push to talk with the key: recording while F8 is held, stopped when it is released.
    await page.keyboard.down('F8');
    await expect(page.getByTestId('recording-indicator')).toBeVisible();
    await expect(button).toHaveAttribute('aria-pressed', 'true');
    await page.waitForTimeout(800);
    await page.keyboard.up('F8');
    await expect(page.getByTestId('recording-indicator')).toBeHidden();
    await expect(button).toHaveAttribute('data-state', 'idle', { timeout: 30_000 });
    // Esc while recording cancels the recording and leaves the window open.
    await page.keyboard.down('F8');
    await expect(page.getByTestId('recording-indicator')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('recording-indicator')).toBeHidden();
    await page.keyboard.up('F8');
    expect(page.isClosed()).toBe(false);

    // The desktop shell's global push-to-talk: each press sets the fragment to #ptt=<n> (it has no key-up), the
    // first starting the microphone, the next stopping it; ?dictate=1 opens the page recording.
    await page.evaluate(() => (location.hash = '#ptt=1'));
    await expect(page.getByTestId('recording-indicator')).toBeVisible();
    await page.waitForTimeout(800);
    await page.evaluate(() => (location.hash = '#ptt=2'));
    await expect(page.getByTestId('recording-indicator')).toBeHidden();
    await expect(button).toHaveAttribute('data-state', 'idle', { timeout: 30_000 });
    await page.goto(`${server.base}/capture?dictate=1`);
    await expect(page.getByTestId('capture')).toHaveAttribute('data-ready', 'true');
    await expect(page.getByTestId('recording-indicator')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('recording-indicator')).toBeHidden();
  } finally {
    await mic.close();
    fs.rmSync(wavDir, { recursive: true, force: true });
  }
});

// Last: the destination is part of the kept draft, and the tests above send to the current conversation.
test('to the Inbox: the Inbox conversation appears in the main window with the note', async () => {
  const page = await openCapture();
  await page.getByTestId('destination-inbox').check();
  await page.getByTestId('capture-input').fill('Call the plumber on Monday');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('capture-notice')).toContainText('Inbox');
  await expect(main.getByTestId('session-item').filter({ hasText: 'Inbox' })).toHaveCount(1);
  await page.close();
});
