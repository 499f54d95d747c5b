/// <reference lib="dom" />
// Dictation through a real (fake-device) microphone: Chromium plays a synthesized WAV as the mic input, the
// page records it with MediaRecorder, the server transcribes it on-device.
import { chromium, type BrowserContext } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.js';
import { expect, test } from './fixtures.js';
import { skipWithoutSpeechTools, skipWithoutTranscription } from './helpers/mic.js';
import { serverInfo } from './helpers/server.js';
import { speechWav, wordErrorRate } from './helpers/speech.js';

const SENTENCE = 'Can you tell me how long it takes to drive to the airport';
const DENIED = 'Microphone access was denied. Allow microphone access for Satchel in your browser or system settings, then try again.';

async function micContext(wav: string | null, extraArgs: string[] = []): Promise<{ ctx: BrowserContext; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-mic-'));
  const args = [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream', ...extraArgs];
  if (wav) args.push(`--use-file-for-fake-audio-capture=${wav}%noloop`);
  const ctx = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args,
    viewport: { width: 1360, height: 860 },
  });
  return { ctx, dir };
}

test.describe('voice', () => {
  test('granted: a spoken sentence is transcribed into the composer', async () => {
    const server = serverInfo();
    skipWithoutSpeechTools('voice/granted');
    const wavDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-wav-'));
    const wav = path.join(wavDir, 'sentence.wav');
    speechWav(SENTENCE, wav);
    const { ctx, dir } = await micContext(wav, ['--use-fake-ui-for-media-stream']);
    try {
      await ctx.grantPermissions(['microphone'], { origin: server.base });
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      await page.goto(`${server.base}/?token=${server.token}`);
      await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
      const cap = await skipWithoutTranscription(page, 'voice/granted');
      const mic = page.getByTestId('mic-button');
      await expect(mic).toBeVisible();
      await expect(mic).toHaveAttribute('title', new RegExp(`speech-to-text: ${cap.provider}`));
      await page.getByTestId('composer-input').fill('Dictated:');
      await mic.click();
      await expect(page.getByTestId('recording-indicator')).toBeVisible();
      await expect(mic).toHaveAttribute('aria-pressed', 'true');
      // The WAV is ~4.5 s; let it play out, watching the clock and the level meter move.
      await expect(page.getByTestId('recording-elapsed')).toHaveText('0:02', { timeout: 10_000 });
      const level = await page.getByTestId('level-meter').getAttribute('data-level');
      expect(level).not.toBeNull();
      await expect(page.getByTestId('recording-elapsed')).toHaveText('0:05', { timeout: 10_000 });
      await mic.click();
      await expect(page.getByTestId('voice-status')).toHaveText('Transcribing…');
      await expect(page.getByTestId('recording-indicator')).toBeHidden();
      await expect(page.getByTestId('composer-input')).not.toHaveValue('Dictated:', { timeout: 30_000 });
      const value = await page.getByTestId('composer-input').inputValue();
      expect(value.startsWith('Dictated: ')).toBe(true);
      const transcript = value.slice('Dictated: '.length);
      const wer = wordErrorRate(SENTENCE, transcript);
      console.log(`voice/granted transcript: "${transcript}" WER ${wer.toFixed(3)}`);
      expect(wer, `transcript "${transcript}"`).toBeLessThanOrEqual(0.25);

      // Hold to talk: a press of at least 300 ms records until release. (The WAV has played out, so this
      // records silence: the point is the gesture, which must start, show its state, and stop on release.)
      await page.getByTestId('composer-input').fill('');
      const box = await mic.boundingBox();
      if (!box) throw new Error('mic button has no box');
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await expect(page.getByTestId('recording-indicator')).toBeVisible();
      await page.waitForTimeout(1200);
      await expect(page.getByTestId('recording-indicator')).toBeVisible();
      await page.mouse.up();
      await expect(page.getByTestId('recording-indicator')).toBeHidden();
      await expect(mic).toHaveAttribute('data-state', 'idle', { timeout: 30_000 });
      await expect(mic).toHaveAttribute('aria-pressed', 'false');
    } finally {
      await ctx.close();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(wavDir, { recursive: true, force: true });
    }
  });

  test('denied: the user is told how to allow the microphone', async () => {
    const server = serverInfo();
    const { ctx, dir } = await micContext(null);
    try {
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      await page.goto(`${server.base}/?token=${server.token}`);
      await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
      const cap = await page.evaluate(async () => (await (await fetch('/api/transcribe/capability')).json()) as { available: boolean });
      if (!cap.available) {
        // Without a transcriber the button is disabled (saying why); enable it to exercise the permission path anyway.
        await page.evaluate(() => document.querySelector<HTMLButtonElement>('[data-testid="mic-button"]')?.removeAttribute('disabled'));
      }
      await page.getByTestId('mic-button').click();
      await expect(page.getByTestId('voice-error')).toHaveText(DENIED);
      await expect(page.getByTestId('recording-indicator')).toBeHidden();
      await expect(page.getByTestId('mic-button')).toHaveAttribute('aria-pressed', 'false');
    } finally {
      await ctx.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
