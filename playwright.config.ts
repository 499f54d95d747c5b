// End-to-end tests: Debian's Chromium (never a downloaded browser) against the real server, started once by
// the global setup with a temporary state folder and trusted workspace.
import { defineConfig } from '@playwright/test';

export const CHROMIUM_PATH = process.env.SATCHEL_E2E_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export default defineConfig({
  testDir: 'e2e',
  testMatch: /.*\.spec\.ts$/,
  // The Electron shell's spec belongs to its own harness.
  testIgnore: /electron\.spec\.ts$/,
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  // The machine has two cores and the server under test shares them.
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  outputDir: 'test-results',
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1360, height: 860 },
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    actionTimeout: 15_000,
    navigationTimeout: 20_000,
    trace: 'off',
  },
});
