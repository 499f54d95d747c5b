// Where the screenshot specs write: the folder the screenshots config names (npm run screenshots writes the
// tracked docs/screenshots/), else the test's own output folder, so a test run leaves a clean clone clean.
import fs from 'node:fs';
import path from 'node:path';
import type { TestInfo } from '@playwright/test';

/** The config metadata key naming the folder the screenshots spec writes into (e2e/screenshots.config.ts). */
export const SCREENSHOT_DIR_KEY = 'satchelScreenshotDir';

/** Where this test's pictures go: the folder the screenshots config names, else the test's output folder. */
export function screenshotDir(info: TestInfo): string {
  const named = info.config.metadata[SCREENSHOT_DIR_KEY];
  const dir = typeof named === 'string' ? path.resolve(named) : info.outputPath('screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
