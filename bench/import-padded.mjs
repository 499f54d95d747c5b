// Issue 33 finding 3: what a padded export costs the server. A valid conversation.json plus one unknown field of
// 64 MiB of `{},{},…` (65 KB zipped) is imported alone, then four of them in one "Export all" archive, into a
// fresh server per run (the built server of a commit, compiled into .cache/ by lib.mjs buildRevision), while
// /health is asked one request after another. Per run and case:
//   status     the import's answer (or `died` when the process ended)
//   import s   the POST from send to answer
//   health p50/p99/max ms   /health while the import ran
//   peak MiB   the server's peak resident memory (VmHWM) at the end
// and the floor measured in the same run: /health p50/p99 for 2 s with nothing running, and the idle RSS.
// Usage: node bench/import-padded.mjs [--runs 3] [--before-runs 1] [--before REV] [--after REV]
//   (from the repository root; REV defaults: before = the commit this work started from, after = HEAD)
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import yazl from 'yazl';
import { arg, buildRevision, machine, median, pct } from './lib.mjs';

const RUNS = Number(arg('--runs', '3'));
const BEFORE_RUNS = Number(arg('--before-runs', '1'));
const BEFORE = arg('--before', '92a94ff');
const AFTER = arg('--after', 'HEAD');
const TOKEN = 'bench-token-0123456789abcdef';
const PADDED_BYTES = 64 * 1024 * 1024;
const FLOOR_MS = 2_000;
const IMPORT_LIMIT_MS = 10 * 60_000;
const BOUNDARY = 'benchPaddedBoundary';

function padded() {
  const head = '{"satchel_export":1,"title":"Padded","messages":[{"role":"user","content":"hello","timestamp":1767000000}],"attachments":[],"padding":[';
  const count = Math.floor((PADDED_BYTES - head.length - 3) / 3);
  return `${head}${'{},'.repeat(count)}{}]}`;
}

async function zipOf(files) {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const chunks = [];
  for await (const c of zip.outputStream) chunks.push(c);
  return Buffer.concat(chunks);
}

function multipart(filename, bytes) {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/zip\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

async function startServer(dist, stateDir) {
  const workspace = path.join(stateDir, '..', 'workspace');
  await fs.mkdir(workspace, { recursive: true });
  const script = `const { startServer } = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'server', 'index.js')).href)});
const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: ${JSON.stringify(TOKEN)}, maxUploadBytes: 100 * 1024 * 1024, defaultWorkspace: ${JSON.stringify(workspace)} });
process.stdout.write(JSON.stringify({ origin: s.origin }) + '\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: path.dirname(dist), stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' } });
  const origin = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl !== -1) resolve(JSON.parse(buf.slice(0, nl)).origin);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, origin };
}

const status = async (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(await fs.readFile(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** One GET /health on a connection of its own. */
function health(origin) {
  return new Promise((resolve, reject) => {
    const req = http.get(`${origin}/health`, { agent: false, timeout: IMPORT_LIMIT_MS }, (res) => {
      res.resume();
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/**
 * /health one after another until `until` settles; the latencies. Each on a connection of its own (a kept-alive
 * one the server closes meanwhile would fail the request, not measure it); a failed request counts as the time
 * it took, and ends the watch only when the server is gone.
 */
async function healthWhile(origin, until, isDead = () => false) {
  let done = false;
  void until.finally(() => (done = true));
  const out = [];
  while (!done) {
    const t0 = performance.now();
    try {
      await health(origin);
    } catch {
      if (isDead()) break;
    }
    out.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 10));
  }
  return out;
}

async function run(dist, zip) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-bench-import-'));
  const { child, origin } = await startServer(dist, path.join(dir, 'state'));
  let died = false;
  child.once('exit', () => (died = true));
  try {
    await new Promise((r) => setTimeout(r, 500));
    const idle = await status(child.pid, 'VmRSS');
    const floor = await healthWhile(origin, new Promise((r) => setTimeout(r, FLOOR_MS)));
    const t0 = performance.now();
    const answer = fetch(`${origin}/api/session/import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: multipart('export.zip', zip),
      signal: AbortSignal.timeout(IMPORT_LIMIT_MS),
    }).then(
      async (res) => `${res.status}`,
      () => 'died',
    );
    const during = await healthWhile(origin, answer, () => died);
    const result = await answer;
    const seconds = (performance.now() - t0) / 1000;
    const peak = died ? NaN : await status(child.pid, 'VmHWM');
    return { result: died ? 'died' : result, seconds, floor, during, idle, peak };
  } finally {
    child.kill('SIGKILL');
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '–');

const text = padded();
const cases = {
  'single (64 MiB padded)': await zipOf({ 'conversation.json': text }),
  'Export all (4 × 64 MiB padded)': await zipOf(Object.fromEntries(['a', 'b', 'c', 'd'].map((f) => [`2026-01-01 Padded ${f.repeat(12)}/conversation.json`, text]))),
};
console.log(`# import-padded: ${machine()}`);
for (const [name, zip] of Object.entries(cases)) console.log(`${name}: zip ${(zip.length / 1024).toFixed(0)} KB`);
console.log('| build | case | runs | status | import s | /health p50 / p99 / max ms (floor p50 / p99) | peak RSS MiB (idle) |');
console.log('|---|---|---|---|---|---|---|');
// After first: the before build's runs take minutes each (and the last ends in a crash).
for (const [label, rev, runs] of [['after', AFTER, RUNS], ['before', BEFORE, BEFORE_RUNS]]) {
  if (runs <= 0) continue;
  const { commit, out } = buildRevision(rev, 'import-padded');
  for (const [name, zip] of Object.entries(cases)) {
    const results = [];
    for (let i = 0; i < runs; i++) results.push(await run(out, zip));
    const m = (f) => median(results.map(f));
    console.log(
      `| ${label} ${commit} | ${name} | ${runs} | ${[...new Set(results.map((r) => r.result))].join(', ')} | ${fmt(m((r) => r.seconds), 2)} | ` +
        `${fmt(m((r) => pct(r.during, 50)))} / ${fmt(m((r) => pct(r.during, 99)))} / ${fmt(m((r) => Math.max(...r.during)))} ` +
        `(${fmt(m((r) => pct(r.floor, 50)), 1)} / ${fmt(m((r) => pct(r.floor, 99)), 1)}) | ${fmt(m((r) => r.peak))} (${fmt(m((r) => r.idle))}) |`,
    );
  }
}
