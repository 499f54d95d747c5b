// npm run architecture: writes docs/architecture.md's picture of the layers from server/architecture/tiers.ts.
// The generator is the architecture test's own (server/architecture/picture.ts), run by vitest in write mode, so
// the picture written is exactly the one the test compares; the test then also checks the rules.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitest = createRequire(import.meta.url).resolve('vitest/vitest.mjs');
const run = spawnSync(process.execPath, [vitest, 'run', 'server/architecture.test.ts'], {
  cwd: repo,
  stdio: 'inherit',
  env: { ...process.env, SATCHEL_WRITE_ARCHITECTURE_DOC: '1' },
});
process.exit(run.status ?? 1);
