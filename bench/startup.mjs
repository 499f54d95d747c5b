// `npm run serve`, started again with nothing changed: the time from the command to the printed URL line,
// against `node dist/server/cli.js` alone (the floor: no npm, no build check) and the previous script
// (`npm run build --silent && node dist/server/cli.js`, which compiled on every start), alternated in one run.
// `--compare REV` (repeatable) also builds that commit's server into .cache/ and starts it in the same rotation,
// so a change to the start path is measured against its parent side by side. A second table times what the
// server's modules alone cost: `import()` of server/index.js in a fresh Node, for dist/ and each compared build.
// Usage: node bench/startup.mjs [--runs N] [--old-runs N] [--compare REV]...   (from the repository root, with
// nobody editing it: any source saved during the run makes the next `npm run serve` build, as it should)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, args, buildRevision, machine, median } from './lib.mjs';

const URL_LINE = /Satchel is running at http:\/\/\S+/;
const START_DEADLINE_MS = 120_000;
const RUNS = Number(arg('--runs', 9));
const OLD_RUNS = Number(arg('--old-runs', 3));
const COMPARE = args('--compare');

const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-startup-'));
const serverArgs = ['--state-dir', stateDir];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const VARIANTS = {
  'npm run serve': [npm, ['run', 'serve', '--', ...serverArgs]],
  'node dist/server/cli.js (floor)': [process.execPath, ['dist/server/cli.js', ...serverArgs]],
  // `;` rather than the old `&&`: the compile is timed even when a work-in-progress file fails to typecheck.
  'previous: build every start': ['sh', ['-c', `npm run build --silent; exec node dist/server/cli.js ${serverArgs.join(' ')}`]],
};

const builds = { 'dist/': path.resolve('dist') };
for (const rev of COMPARE) {
  const { commit, out } = buildRevision(rev, 'startup');
  builds[commit] = out;
  VARIANTS[`node server/cli.js at ${commit}`] = [process.execPath, [path.join(out, 'server', 'cli.js'), ...serverArgs]];
}

/** Milliseconds a fresh Node spends in `import()` of a build's server/index.js (its modules, nothing started). */
function importTime(dist) {
  const url = new URL(`file://${path.join(dist, 'server', 'index.js')}`).href;
  const script = `const t = performance.now(); await import(${JSON.stringify(url)}); console.log(performance.now() - t);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`importing ${url} failed:\n${r.stderr}`);
  return Number(r.stdout.trim());
}

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
const imports = Object.fromEntries(Object.keys(builds).map((k) => [k, []]));
for (let i = 0; i < RUNS; i++) {
  for (const [name, command] of Object.entries(VARIANTS)) {
    if (name.startsWith('previous') && i >= OLD_RUNS) continue;
    times[name].push(await timeToUrl(command));
  }
  for (const [name, dist] of Object.entries(builds)) imports[name].push(importTime(dist));
}
fs.rmSync(stateDir, { recursive: true, force: true });

console.log(`machine: ${machine()}`);
console.log(`runs: ${RUNS} (previous script: ${OLD_RUNS}), alternated; time from spawn to the URL line\n`);
const floor = median(times['node dist/server/cli.js (floor)']);
console.log('| Start | median ms | min–max ms | ratio to the floor |');
console.log('|---|---|---|---|');
for (const [name, xs] of Object.entries(times)) {
  if (!xs.length) continue;
  const m = median(xs);
  console.log(`| ${name} | ${m.toFixed(0)} | ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} | ${(m / floor).toFixed(2)} |`);
}

console.log(`\n| import() of server/index.js | median ms | min–max ms | ratio to dist/ |`);
console.log('|---|---|---|---|');
const current = median(imports['dist/']);
for (const [name, xs] of Object.entries(imports)) {
  const m = median(xs);
  console.log(`| ${name} | ${m.toFixed(0)} | ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} | ${(m / current).toFixed(2)} |`);
}
