// A browser whose microphone plays a WAV file (../shared/spec/stt-notes.md): Chromium's fake capture device
// needs a persistent context, since plain launch() refuses --user-data-dir.
import { chromium, type BrowserContext } from '@playwright/test';
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
