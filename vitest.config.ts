import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'main/**/*.test.ts', 'preload/**/*.test.ts', 'scripts/**/*.test.ts', 'renderer/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
