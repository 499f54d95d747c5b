// Headless start-up and shutdown through the app's entry (`node dist/main/index.js --server-only`, what the
// e2e tests and remote users run) against the server's own CLI (`node dist/server/cli.js`), alternating runs
// on one machine. Measures spawn → ready line, spawn → first GET /health 200, and SIGTERM → exit 0.
// Needs `npm run build` (or --dist pointing at another build of the project).
//   node bench/electron-shell.mjs [--runs 15] [--dist dist]
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machine, median, tempDir } from './lib.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' }, dist: { type: 'string', default: 'dist' } } });
const RUNS = Number(values.runs);
const DIST = path.resolve(values.dist);
const READY_TIMEOUT_MS = 20_000;
const EXIT_TIMEOUT_MS = 15_000;

const variants = {
  'main/index.js --server-only': [path.join(DIST, 'main', 'index.js'), '--server-only'],
  'server/cli.js': [path.join(DIST, 'server', 'cli.js')],
};

function health(url) {
  return new Promise((resolve) => {
    const req = http.get(new URL('/health', url), (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
  });
}

async function once(args) {
  const stateDir = await tempDir('satchel-bench-shell-');
  const t0 = performance.now();
  const child = spawn(process.execPath, [...args, '--port', '0', '--state-dir', stateDir], {
    env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no ready line')), READY_TIMEOUT_MS);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /Satchel is running at (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    exited.then(({ code }) => reject(new Error(`exited ${code} before ready`)));
  });
  const ready = performance.now() - t0;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while ((await health(url)) !== 200) {
    if (Date.now() > deadline) throw new Error('health never 200');
  }
  const healthy = performance.now() - t0;
  const t1 = performance.now();
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
  const end = await exited;
  clearTimeout(timer);
  if (end.code !== 0) throw new Error(`exit ${end.code} ${end.signal}`);
  await rm(stateDir, { recursive: true, force: true });
  return { ready, healthy, stop: end.at - t1 };
}

const results = Object.fromEntries(Object.keys(variants).map((k) => [k, { ready: [], healthy: [], stop: [] }]));
await once(variants['server/cli.js']); // warm the file cache; not counted
for (let i = 0; i < RUNS; i++) {
  for (const [name, args] of Object.entries(variants)) {
    const r = await once(args);
    for (const key of ['ready', 'healthy', 'stop']) results[name][key].push(r[key]);
  }
}

const fmt = (x) => x.toFixed(1);
const base = results['server/cli.js'];
console.log(`Machine: ${machine()}; ${RUNS} alternating runs each; medians in ms.\n`);
console.log('| command | spawn → ready line | spawn → /health 200 | SIGTERM → exit 0 |');
console.log('|---|---|---|---|');
for (const [name, r] of Object.entries(results)) {
  console.log(`| \`node ${name}\` | ${fmt(median(r.ready))} | ${fmt(median(r.healthy))} | ${fmt(median(r.stop))} |`);
}
const entry = results['main/index.js --server-only'];
console.log(
  `\nRatio entry / CLI: ready ${(median(entry.ready) / median(base.ready)).toFixed(2)}, ` +
    `health ${(median(entry.healthy) / median(base.healthy)).toFixed(2)}, stop ${(median(entry.stop) / median(base.stop)).toFixed(2)}`,
);
