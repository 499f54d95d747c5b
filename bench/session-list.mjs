// Issue 37, finding 9 (the list part): the first GET /api/sessions after a start, with --sessions conversations.
// The history is made once through the HTTP API (POST /api/session/new, /rename with a title from a README's
// heading, /message) by the after build, then each build is started --starts times on a copy of that state and
// asked for the list once. The floor, in the same run: a bare node:http server sending the same bytes. Per build:
//   first CPU ms   the server's CPU for the first list (the main thread's run time from /proc/<pid>/schedstat,
//                  in ns: one request is below the 10 ms tick of /proc/<pid>/stat; that figure beside it)
//   first wall ms  at the client
// medians over the starts.
// Usage: node bench/session-list.mjs [--sessions 2000] [--starts 7] [--before REV] [--after REV] [--prof DIR]
//   [--state DIR] (the history made once into DIR, and used again by later runs)
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg, buildRevision, machine, median } from './lib.mjs';

const SESSIONS = Number(arg('--sessions', '2000'));
const STARTS = Number(arg('--starts', '7'));
const BEFORE = arg('--before', 'c5ea2d1');
const AFTER = arg('--after', 'HEAD');
const PROF = arg('--prof', '');
/** Keep the made history here and use it again on the next run (it takes minutes to make through the API). */
const STATE = arg('--state', '');
const TOKEN = 'bench-token-0123456789abcdef';
const TICK_MS = 10;
const FLOOR_READS = 20;
/** The server settles after its start (listings loaded, the start's own work done) before the list is asked. */
const SETTLE_MS = 1500;

function headings() {
  const out = [];
  const root = path.resolve('node_modules');
  for (const name of readdirSync(root).sort()) {
    let text;
    try {
      text = readFileSync(path.join(root, name, 'README.md'), 'utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(/^#{1,3} +(.{8,80})$/gm)) out.push(m[1].trim());
  }
  return out;
}

function spawnWithOrigin(args, cwd) {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' } });
  const origin = new Promise((resolve, reject) => {
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

function startSatchel(dist, stateDir, prof) {
  const workspace = path.join(path.dirname(stateDir), 'workspace');
  const script = `await (await import('node:fs/promises')).mkdir(${JSON.stringify(workspace)}, { recursive: true });
const { startServer } = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'server', 'index.js')).href)});
const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: ${JSON.stringify(TOKEN)}, defaultWorkspace: ${JSON.stringify(workspace)} });
process.on('SIGTERM', async () => { await s.stop?.(); process.exit(0); });
process.stdout.write(JSON.stringify({ origin: s.origin }) + '\\n');`;
  const flags = prof ? ['--cpu-prof', '--cpu-prof-dir', PROF, '--cpu-prof-name', `${prof}.cpuprofile`] : [];
  return spawnWithOrigin([...flags, '--input-type=module', '-e', script], path.dirname(dist));
}

function startFloor(file) {
  const script = `const http = await import('node:http');
const body = (await import('node:fs')).readFileSync(${JSON.stringify(file)});
const s = http.createServer((req, res) => { req.resume(); res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length }); res.end(body); });
s.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ origin: 'http://127.0.0.1:' + s.address().port }) + '\\n'));
process.on('SIGTERM', () => process.exit(0));`;
  return spawnWithOrigin(['--input-type=module', '-e', script], process.cwd());
}

async function cpu(pid) {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [ns] = (await fs.readFile(`/proc/${pid}/schedstat`, 'utf8')).split(' ');
  return { ticksMs: (Number(f[11]) + Number(f[12])) * TICK_MS, mainMs: Number(ns) / 1e6 };
}

function get(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { Authorization: `Bearer ${TOKEN}` } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${url}: ${res.statusCode}`))));
    });
    req.on('error', reject);
  });
}

async function post(origin, pathname, body) {
  const res = await fetch(`${origin}${pathname}`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${pathname}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

const stop = async (child) => {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
};

async function makeHistory(dist, stateDir) {
  const titles = headings();
  const { child, origin: o } = startSatchel(dist, stateDir, '');
  const origin = await o;
  for (let i = 0; i < SESSIONS; i++) {
    const { session } = await post(origin, '/api/session/new', {});
    const title = titles[(i * 7919) % titles.length];
    await post(origin, '/api/session/rename', { session_id: session.session_id, title });
    await post(origin, '/api/session/message', { session_id: session.session_id, text: `About ${title}: where do I start?`, answer: 'summary' });
  }
  await stop(child);
}

async function firstList(dist, state, label, i) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-bench-list-run-'));
  await fs.cp(state, path.join(dir, 'state'), { recursive: true });
  const { child, origin: o } = startSatchel(dist, path.join(dir, 'state'), PROF && i === 0 ? label : '');
  try {
    const origin = await o;
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const c0 = await cpu(child.pid);
    const t0 = performance.now();
    const body = await get(`${origin}/api/sessions`);
    const wall = performance.now() - t0;
    const c1 = await cpu(child.pid);
    return { main: c1.mainMs - c0.mainMs, ticks: c1.ticksMs - c0.ticksMs, wall, body };
  } finally {
    await stop(child);
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function floorOf(body) {
  const file = path.join(os.tmpdir(), `satchel-bench-list-body-${process.pid}.json`);
  await fs.writeFile(file, body);
  const { child, origin: o } = startFloor(file);
  try {
    const origin = await o;
    await get(origin);
    const c0 = await cpu(child.pid);
    const walls = [];
    for (let i = 0; i < FLOOR_READS; i++) {
      const t0 = performance.now();
      await get(origin);
      walls.push(performance.now() - t0);
    }
    const c1 = await cpu(child.pid);
    return { main: (c1.mainMs - c0.mainMs) / FLOOR_READS, wall: median(walls) };
  } finally {
    await stop(child);
    await fs.rm(file, { force: true });
  }
}

const before = buildRevision(BEFORE, 'bench-list');
const after = buildRevision(AFTER, 'bench-list');
if (PROF) await fs.mkdir(PROF, { recursive: true });
const root = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-bench-list-'));
const state = STATE ? path.resolve(STATE) : path.join(root, 'state');
if (!STATE || !existsSync(path.join(state, 'satchel.db'))) await makeHistory(after.out, state);
console.log(`# session-list: ${SESSIONS} conversations made through the HTTP API, the first GET /api/sessions after each of ${STARTS} starts; ${machine()}`);
console.log('| build | body KiB | first list CPU ms (main thread) | /proc stat ticks ms | floor CPU ms (warm) | first wall ms | floor wall ms |');
console.log('|---|---|---|---|---|---|---|');
for (const [label, build] of [
  ['before', before],
  ['after', after],
]) {
  const runs = [];
  for (let i = 0; i < STARTS; i++) runs.push(await firstList(build.out, state, label, i));
  const floor = await floorOf(runs[0].body);
  const m = (k) => median(runs.map((r) => r[k])).toFixed(1);
  console.log(`| ${label} ${build.commit} | ${(runs[0].body.length / 1024).toFixed(0)} | ${m('main')} | ${m('ticks')} | ${floor.main.toFixed(2)} | ${m('wall')} | ${floor.wall.toFixed(2)} |`);
}
await fs.rm(root, { recursive: true, force: true });
