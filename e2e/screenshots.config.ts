// `npm run screenshots`: the screenshots spec alone, writing the pictures into the tracked docs/screenshots/
// folder. The default run (playwright.config.ts) walks the same screens but keeps its pictures in test-results/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import base from '../playwright.config.js';
import { SCREENSHOT_DIR_KEY } from './helpers/screenshot-dir.js';

export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: /screenshots\.spec\.ts$/,
  testIgnore: undefined,
  globalSetup: './global-setup.ts',
  outputDir: '../test-results',
  metadata: { ...base.metadata, [SCREENSHOT_DIR_KEY]: fileURLToPath(new URL('../docs/screenshots', import.meta.url)) },
});
