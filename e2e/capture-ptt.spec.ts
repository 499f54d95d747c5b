/// <reference lib="dom" />
// Issue 26, "Push-to-talk anywhere": the desktop shell opens the capture page recording with the setting
// pushToTalkTo in its address (`/capture?dictate=1&then=clipboard|message`, main/window-options.ts), and each
// further press of the global shortcut sets `#ptt=<n>`. Here a Chromium whose fake microphone plays a spoken WAV
// stands in for the person, and the server's own speech model transcribes it: the words land on the clipboard,
// or in the current conversation as a message the agent answers; silence and Esc copy and send nothing.
import { test, expect, type Page } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { storedSession } from '../server/testing/stored-session.js';
import { openApp } from './helpers/chat.js';
import { KNOWN_SENTENCE, KNOWN_SENTENCE_WORDS, micBrowser, skipWithoutSpeechTools, skipWithoutTranscription, type MicBrowser } from './helpers/mic.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import type { RunningServer } from './helpers/server.js';
import { speechWav } from './helpers/speech.js';
import { writeToneWav } from '../server/speech/testing/tone.js';

const KEY = 'sk-capture-ptt-e2e-key';
/** The capture window's size as the shell opens it. */
const CAPTURE_VIEWPORT = { width: 560, height: 440 };
/** The spoken WAV is about 4.5 s with its padding: recording to this clock reading takes all of it. */
const RECORDING_DONE = '0:05';
const RECORDING_DEADLINE_MS = 10_000;
/** Transcribing on the device under the load of a shared CI machine. */
const TRANSCRIBE_DEADLINE_MS = 30_000;
/** Seconds of digital silence the "said nothing" microphone plays. */
const SILENCE_S = 3;
const SILENCE_RATE = 16_000;

let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});

let wavDir: string;
let spoken: string;
let silent: string;
let targetId: string;

test.beforeAll(async () => {
  skipWithoutSpeechTools('capture push-to-talk');
  const res = await fetch(`${server.base}/api/agent/settings`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ base_url: agent.baseUrl, api_key: KEY, model: 'fake-model' }),
  });
  expect(res.status, await res.text()).toBe(200);
  const auth = { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' };
  const made = (await (await fetch(`${server.base}/api/session/new`, { method: 'POST', headers: auth, body: '{}' })).json()) as { session: { session_id: string } };
  targetId = made.session.session_id;
  await fetch(`${server.base}/api/session/rename`, { method: 'POST', headers: auth, body: JSON.stringify({ session_id: targetId, title: 'Groceries' }) });
  wavDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-ptt-'));
  spoken = path.join(wavDir, 'spoken.wav');
  speechWav(KNOWN_SENTENCE, spoken);
  silent = path.join(wavDir, 'silent.wav');
  // A tone of amplitude 0: a microphone in a quiet room, to the recogniser.
  writeToneWav(silent, SILENCE_S, SILENCE_RATE, 1, 440, 0);
});
test.afterAll(() => {
  if (wavDir) fs.rmSync(wavDir, { recursive: true, force: true });
});

const storedMessages = async () => (await storedSession(server.stateDir, targetId))!.messages as unknown as { role: string; content: string }[];

interface PttWindow {
  mic: MicBrowser;
  main: Page;
  page: Page;
}

/**
 * A browser whose microphone plays `wav`, its main window on the conversation, and the capture window opened as
 * the shell opens it for push-to-talk (by the main window's script, so it may close itself), recording at once.
 */
async function pushToTalk(wav: string, then: 'clipboard' | 'message', opts: { refuseClipboard?: boolean } = {}): Promise<PttWindow> {
  const mic = await micBrowser(wav);
  await mic.ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
  // A system that refuses the write (an unfocused window, a policy): what the browser answers then.
  if (opts.refuseClipboard) {
    await mic.ctx.addInitScript(() => {
      navigator.clipboard.writeText = () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));
    });
  }
  const main = mic.ctx.pages()[0] ?? (await mic.ctx.newPage());
  await openApp(main, server);
  await main.goto(`${server.base}/#s=${targetId}`);
  await expect(main.getByTestId('app')).toHaveAttribute('data-ready', 'true');
  await skipWithoutTranscription(main, 'capture push-to-talk');
  const [page] = await Promise.all([
    mic.ctx.waitForEvent('page'),
    main.evaluate(([url, w, h]) => void window.open(url, '_blank', `popup,width=${w},height=${h}`), [`/capture?dictate=1&then=${then}`, CAPTURE_VIEWPORT.width, CAPTURE_VIEWPORT.height] as const),
  ]);
  await page.setViewportSize(CAPTURE_VIEWPORT);
  await expect(page.getByTestId('capture')).toHaveAttribute('data-ready', 'true');
  return { mic, main, page };
}

/** What the clipboard holds before push-to-talk: still there after Esc. */
const BEFORE_CLIP = 'left on the clipboard before';

/** Put `text` on the clipboard from the main window (the clipboard wants a focused page), then back to capture. */
async function clipboardHolds(main: Page, page: Page, text: string): Promise<void> {
  await main.bringToFront();
  await main.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.bringToFront();
}

/** The second press of the shortcut: the shell changes only the fragment. */
const press = (page: Page, n: number) => page.evaluate((hash) => (location.hash = hash), `#ptt=${n}`);

test('then=clipboard: the words go onto the clipboard, "Copied to the clipboard", and the window closes itself', async ({}, info) => {
  const { mic, main, page } = await pushToTalk(spoken, 'clipboard');
  try {
    const before = (await storedMessages()).length;
    await clipboardHolds(main, page, BEFORE_CLIP);
    // The recording indicator is up while the microphone is open, as in every mode.
    await expect(page.getByTestId('recording-indicator')).toBeVisible();
    await expect(page.getByTestId('capture-notice')).toHaveText('Dictating for the clipboard: press the shortcut again to stop, Esc to cancel.');
    await page.screenshot({ path: path.join(screenshotDir(info), 'push-to-talk-clipboard.png') });
    await expect(page.getByTestId('recording-elapsed')).toHaveText(RECORDING_DONE, { timeout: RECORDING_DEADLINE_MS });
    const closed = page.waitForEvent('close', { timeout: TRANSCRIBE_DEADLINE_MS });
    await press(page, 1);
    await expect(page.getByTestId('recording-indicator')).toBeHidden();
    await expect(page.getByTestId('capture-notice')).toHaveText('Copied to the clipboard.', { timeout: TRANSCRIBE_DEADLINE_MS });
    await closed;
    await main.bringToFront();
    const copied = (await main.evaluate(() => navigator.clipboard.readText())).toLowerCase();
    for (const word of KNOWN_SENTENCE_WORDS) expect(copied, copied).toContain(word);
    // Copied, not sent.
    expect(await storedMessages()).toHaveLength(before);
  } finally {
    await mic.close();
  }
});

test('then=message: the words are a message in the current conversation, the agent answers, the main window shows both', async () => {
  agent.next(reply('Opening the settings window now.'));
  // A half-written quick-capture draft is not what push-to-talk sends, and it is still there afterwards.
  const kept = await fetch(`${server.base}/api/capture/draft`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: 'half a list' }),
  });
  expect(kept.status).toBe(200);
  const { mic, main, page } = await pushToTalk(spoken, 'message');
  try {
    await expect(page.getByTestId('capture-input')).toHaveValue('half a list');
    await expect(page.getByTestId('recording-indicator')).toBeVisible();
    await expect(page.getByTestId('recording-elapsed')).toHaveText(RECORDING_DONE, { timeout: RECORDING_DEADLINE_MS });
    const closed = page.waitForEvent('close', { timeout: TRANSCRIBE_DEADLINE_MS });
    await press(page, 1);
    await expect(page.getByTestId('capture-notice')).toHaveText('Sent to “Groceries”.', { timeout: TRANSCRIBE_DEADLINE_MS });
    await closed;
    await expect.poll(async () => (await storedMessages()).map((m) => m.role)).toEqual(['user', 'assistant']);
    const [question, answer] = await storedMessages();
    for (const word of KNOWN_SENTENCE_WORDS) expect(question!.content.toLowerCase(), question!.content).toContain(word);
    expect(question!.content).not.toContain('half a list');
    expect(answer!.content).toBe('Opening the settings window now.');
    // The main window, on that conversation, shows the spoken question and the reply.
    await expect(main.getByTestId('message-text').first()).toContainText(/settings/i);
    await expect(main.getByText('Opening the settings window now.')).toBeVisible();
    const draft = await main.evaluate(async () => ((await (await fetch('/api/capture')).json()) as { draft: { text: string } }).draft.text);
    expect(draft).toBe('half a list');
    await fetch(`${server.base}/api/capture/draft`, { method: 'PUT', headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' }, body: '{}' });
  } finally {
    await mic.close();
  }
});

test('silence sends nothing and says so; the window stays for another try', async () => {
  const { mic, page } = await pushToTalk(silent, 'message');
  try {
    const before = (await storedMessages()).length;
    await expect(page.getByTestId('recording-indicator')).toBeVisible();
    await expect(page.getByTestId('recording-elapsed')).toHaveText('0:02', { timeout: RECORDING_DEADLINE_MS });
    await press(page, 1);
    await expect(page.getByTestId('capture-notice')).toHaveText('No speech was recognised: nothing was sent.', { timeout: TRANSCRIBE_DEADLINE_MS });
    await expect(page.getByTestId('mic-button')).toHaveAttribute('data-state', 'idle');
    expect(page.isClosed()).toBe(false);
    expect(await storedMessages()).toHaveLength(before);
    await expect(page.getByTestId('capture-input')).toHaveValue('');
  } finally {
    await mic.close();
  }
});

test('Esc while recording cancels: nothing copied, nothing sent', async () => {
  for (const then of ['clipboard', 'message'] as const) {
    const { mic, main, page } = await pushToTalk(spoken, then);
    try {
      const before = (await storedMessages()).length;
      await clipboardHolds(main, page, BEFORE_CLIP);
      await expect(page.getByTestId('recording-indicator')).toBeVisible();
      await expect(page.getByTestId('recording-elapsed')).toHaveText('0:02', { timeout: RECORDING_DEADLINE_MS });
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('recording-indicator')).toBeHidden();
      await expect(page.getByTestId('capture-notice')).toHaveText(`Recording cancelled: nothing was ${then === 'clipboard' ? 'copied' : 'sent'}.`);
      await expect(page.getByTestId('mic-button')).toHaveAttribute('data-state', 'idle');
      expect(page.isClosed()).toBe(false);
      await main.bringToFront();
      expect(await main.evaluate(() => navigator.clipboard.readText())).toBe(BEFORE_CLIP);
      expect(await storedMessages()).toHaveLength(before);
    } finally {
      await mic.close();
    }
  }
});

test('a refused clipboard: the page says so and the words stay in the field (and in the kept draft); the window stays', async () => {
  const { mic, main, page } = await pushToTalk(spoken, 'clipboard', { refuseClipboard: true });
  try {
    await expect(page.getByTestId('recording-elapsed')).toHaveText(RECORDING_DONE, { timeout: RECORDING_DEADLINE_MS });
    await press(page, 1);
    await expect(page.getByTestId('capture-notice')).toHaveText('Could not copy to the clipboard (the system refused it). The text is in the field: copy it from there.', {
      timeout: TRANSCRIBE_DEADLINE_MS,
    });
    const field = (await page.getByTestId('capture-input').inputValue()).toLowerCase();
    for (const word of KNOWN_SENTENCE_WORDS) expect(field, field).toContain(word);
    await expect
      .poll(async () => (await main.evaluate(async () => ((await (await fetch('/api/capture')).json()) as { draft: { text: string } }).draft.text)).toLowerCase())
      .toContain('settings');
    expect(page.isClosed()).toBe(false);
  } finally {
    // Closed first: the page saves its draft as it goes.
    await mic.close();
    await fetch(`${server.base}/api/capture/draft`, { method: 'PUT', headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' }, body: '{}' });
  }
});
