// Playwright harness for the Electron shell only (the main config ignores electron.spec.ts: it needs no
// browser and no shared server; the app starts its own). Run: npx playwright test -c e2e/electron.config.ts
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: /electron\.spec\.ts$/,
  fullyParallel: false,
  // One Electron at a time: the machine has two cores and the app holds a single-instance lock.
  workers: 1,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  retries: 0,
  reporter: [['list']],
  outputDir: '../test-results/electron',
});
