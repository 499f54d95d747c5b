// A browser whose microphone plays a WAV file (docs/spec-notes.md, "A fake microphone in a headless browser"):
// Chromium's fake capture device needs a persistent context, since plain launch() refuses --user-data-dir.
import { chromium, expect, test, type BrowserContext, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config.js';

/** The speech model the server transcribes with, where the repository keeps it. */
export const SPEECH_MODEL_DIR = path.resolve('models/moonshine-tiny');
const ESPEAK_PROBE_TIMEOUT_MS = 10_000;

export function hasEspeak(): boolean {
  try {
    execFileSync('espeak-ng', ['--version'], { stdio: 'ignore', timeout: ESPEAK_PROBE_TIMEOUT_MS });
    return true;
  } catch {
    return false;
  }
}

export interface MicBrowser {
  ctx: BrowserContext;
  close(): Promise<void>;
}

/**
 * A fresh Chromium profile whose microphone plays `wav` once (`%noloop`), permission prompts answered yes.
 * close() ends the browser and removes the profile.
 */
export async function micBrowser(wav: string): Promise<MicBrowser> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-mic-'));
  const ctx = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}%noloop`],
    viewport: { width: 1360, height: 860 },
  });
  return {
    ctx,
    close: async () => {
      await ctx.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Skip the running test, saying why on the console, when what dictation needs on this machine is missing: the
 * speech model (fetched by `npm install`) or espeak-ng (which speaks the sentence the fake microphone plays).
 */
export function skipWithoutSpeechTools(label: string): void {
  if (!fs.existsSync(SPEECH_MODEL_DIR)) {
    console.log(`SKIP ${label}: no speech model at ${SPEECH_MODEL_DIR} (run "node scripts/fetch-model.mjs")`);
    test.skip(true, `no speech model at ${SPEECH_MODEL_DIR}`);
  }
  if (!hasEspeak()) {
    console.log(`SKIP ${label}: espeak-ng is not installed`);
    test.skip(true, 'espeak-ng is not installed');
  }
}

/** Skip the running test, saying why, when the server behind `page` says it cannot transcribe; else its probe. */
export async function skipWithoutTranscription(page: Page, label: string): Promise<{ available: boolean; provider: string }> {
  const cap = await page.evaluate(async () => (await (await fetch('/api/transcribe/capability')).json()) as { available: boolean; provider: string });
  if (!cap.available) {
    console.log(`SKIP ${label}: the server reports speech-to-text unavailable (provider ${cap.provider})`);
    test.skip(true, 'speech-to-text unavailable on this server');
  }
  return cap;
}

/** A sentence the whole chain (espeak-ng → fake mic → webm → Moonshine) is known to return (stt-notes.md). */
export const KNOWN_SENTENCE = 'Please open the settings window and change the language to English';
/** The words of KNOWN_SENTENCE a transcript must hold. */
export const KNOWN_SENTENCE_WORDS = ['settings', 'window', 'language', 'english'];
/** The WAV is about 4.5 s with its padding: recording to this clock reading takes all of it. */
const RECORDING_DONE = '0:05';
const RECORDING_DEADLINE_MS = 10_000;
const TRANSCRIBE_DEADLINE_MS = 30_000;

/**
 * Record the fake microphone's whole WAV with the mic button and stop; returns once the button is idle again,
 * i.e. the transcript came back (or failed).
 */
export async function dictateWholeWav(page: Page): Promise<void> {
  const button = page.getByTestId('mic-button');
  await button.click();
  await expect(page.getByTestId('recording-indicator')).toBeVisible();
  await expect(page.getByTestId('recording-elapsed')).toHaveText(RECORDING_DONE, { timeout: RECORDING_DEADLINE_MS });
  // Stopping switches to transcribing at once; idle again means the transcript came back (or failed).
  await button.click();
  await expect(button).toHaveAttribute('data-state', 'idle', { timeout: TRANSCRIBE_DEADLINE_MS });
}
