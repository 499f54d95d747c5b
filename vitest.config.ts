import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'main/**/*.test.ts', 'preload/**/*.test.ts', 'scripts/**/*.test.ts', 'renderer/**/*.test.ts'],
    // Deadlines for a stall, not speed: a test that waits for background work (harness BACKGROUND_DEADLINE_MS)
    // gets time for it on a loaded two-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
