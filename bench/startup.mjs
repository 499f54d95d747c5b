// `npm run serve`, started again with nothing changed: the time from the command to the printed URL line,
// against `node dist/server/cli.js` alone (the floor: no npm, no build check) and the previous script
// (`npm run build --silent && node dist/server/cli.js`, which compiled on every start), alternated in one run.
// Usage: node bench/startup.mjs [--runs N] [--old-runs N]   (from the repository root, with nobody editing it:
// any source saved during the run makes the next `npm run serve` build, as it should)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machine, median } from './lib.mjs';

const URL_LINE = /Satchel is running at http:\/\/\S+/;
const START_DEADLINE_MS = 120_000;
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const RUNS = arg('--runs', 9);
const OLD_RUNS = arg('--old-runs', 3);

const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-startup-'));
const serverArgs = ['--state-dir', stateDir];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const VARIANTS = {
  'npm run serve': [npm, ['run', 'serve', '--', ...serverArgs]],
  'node dist/server/cli.js (floor)': [process.execPath, ['dist/server/cli.js', ...serverArgs]],
  // `;` rather than the old `&&`: the compile is timed even when a work-in-progress file fails to typecheck.
  'previous: build every start': ['sh', ['-c', `npm run build --silent; exec node dist/server/cli.js ${serverArgs.join(' ')}`]],
};

/** Milliseconds from spawn to the URL line; the whole process group is stopped afterwards. */
function timeToUrl([cmd, args]) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SATCHEL_WEBUI_TOKEN: '' } });
    let out = '';
    const timer = setTimeout(() => finish(new Error(`no URL within ${START_DEADLINE_MS} ms:\n${out}`)), START_DEADLINE_MS);
    const finish = (result) => {
      clearTimeout(timer);
      child.once('exit', () => (result instanceof Error ? reject(result) : resolve(result)));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    child.stdout.on('data', (c) => {
      out += c;
      if (URL_LINE.test(out)) finish(Number(process.hrtime.bigint() - started) / 1e6);
    });
    child.stderr.on('data', (c) => (out += c));
  });
}

// The first start builds (or not) whatever the state of dist/ is; what is measured is the starts after it.
const warm = spawnSync(npm, ['run', 'serve', '--', '--help'], { encoding: 'utf8' });
if (warm.status !== 0) throw new Error(`npm run serve -- --help failed:\n${warm.stderr}`);

const times = Object.fromEntries(Object.keys(VARIANTS).map((k) => [k, []]));
for (let i = 0; i < RUNS; i++) {
  for (const [name, command] of Object.entries(VARIANTS)) {
    if (name.startsWith('previous') && i >= OLD_RUNS) continue;
    times[name].push(await timeToUrl(command));
  }
}
fs.rmSync(stateDir, { recursive: true, force: true });

console.log(`machine: ${machine()}`);
console.log(`runs: ${RUNS} (previous script: ${OLD_RUNS}), alternated; time from spawn to the URL line\n`);
const floor = median(times['node dist/server/cli.js (floor)']);
console.log('| Start | median ms | min–max ms | ratio to the floor |');
console.log('|---|---|---|---|');
for (const [name, xs] of Object.entries(times)) {
  const m = median(xs);
  console.log(`| ${name} | ${m.toFixed(0)} | ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} | ${(m / floor).toFixed(2)} |`);
}
