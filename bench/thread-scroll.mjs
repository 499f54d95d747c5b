// Issue 24's "open the 10,000-message conversation in the UI and scroll it end to end without a frame over
// 50 ms": this build's web UI (only the rows near the screen drawn: renderer/src/thread-view.ts) beside the
// renderer of `--compare REV` (default main, which draws every row), both served by this build's server over
// the same state folder, in one run, in Debian's Chromium. One conversation of 10,000 messages of realistic
// lengths (questions of 40-600 characters, Markdown answers of 200-3,000 with lists, inline code and a code
// block in one answer of four), imported by the server from a JSON session file at its first start.
// Per build and run: opening (navigation to the last message on screen; the longest task meanwhile), then the
// thread scrolled top to bottom and back by `--step` pixels a frame (scrollTop steps), every frame's duration
// from requestAnimationFrame deltas and the long animation frames (PerformanceObserver), and the DOM's element
// count once open. Medians of `--runs`.
// `--import` builds the conversation through POST /api/session/import (a running server, once; every later server
// opens the same state) instead of a JSON session file, and reads it once whole before each open so every build
// opens a conversation the server keeps (projections/session-body.ts). `--open-only` measures the opening alone:
// the longest main-thread task (PerformanceObserver 'longtask'), the time to the tail shown, and the
// GET /api/session answers the page read to get there (issue 37, finding 1: a tail-first read against the whole).
// Usage: npm run build && node bench/thread-scroll.mjs [--runs 3] [--messages 10000] [--step 2000] [--compare main] [--import] [--open-only]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { machine, median, tempDir } from './lib.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    messages: { type: 'string', default: '10000' },
    step: { type: 'string', default: '2000' },
    compare: { type: 'string', default: 'main' },
    // --no-reference: this build alone (with BENCH_PROFILE=1, to read its profile without waiting for the reference).
    'no-reference': { type: 'boolean', default: false },
    // --reference-only: the reference alone (its runs take many minutes: every row is laid out each frame).
    'reference-only': { type: 'boolean', default: false },
    import: { type: 'boolean', default: false },
    'open-only': { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const MESSAGES = Number(values.messages);
/** Pixels a frame: a fling (a wheel notch is 100-120 px); at 2,000 px nearly every row of the window is new each frame, the worst case for drawing, and a run stays minutes long. */
const STEP_PX = Number(values.step);
/** The frame budget the issue sets. */
const BUDGET_MS = 50;
const TOKEN = 'c'.repeat(43);
const VIEWPORT = { width: 1360, height: 860 };
/** Opening the reference, which draws all 10,000 rows, takes tens of seconds on this machine. */
const OPEN_DEADLINE_MS = 600_000;
const START_DEADLINE_MS = 300_000;
const RENDERER_BUILD_TIMEOUT_MS = 300_000;
/** The import's upload: the conversation's JSON (about 17 MB at 10,000 messages) within the server's upload cap. */
const IMPORT_MAX_BYTES = 256 * 2 ** 20;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : 0;
};

// A deterministic conversation: the same on every run and machine.
let seed = 0x7a11;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const WORDS = 'the of and to in is that for it as with was on be by this are from at or an have not which but all were when we there can more if will one about up out so what their into do time has some could them other than then now only its over also after use two how our work first well way even new want because any these give most year file report plan budget meeting travel recipe python error server deploy invoice lisbon garden music photo contract draft summary'.split(' ');
const word = () => WORDS[Math.floor(rand() * rand() * WORDS.length)];
function prose(chars) {
  let s = '';
  while (s.length < chars) s += word() + (rand() < 0.08 ? '. ' : ' ');
  return s.slice(0, chars).trim();
}
/** An answer as an agent writes one: paragraphs, a list, inline code, sometimes a fenced code block. */
function answer(chars, withCode) {
  const parts = [];
  let left = chars;
  while (left > 0) {
    const n = Math.min(left, 150 + Math.floor(rand() * 500));
    const kind = rand();
    if (kind < 0.2) parts.push(Array.from({ length: 3 }, () => `- **${word()}**: ${prose(n / 3)} \`${word()}()\``).join('\n'));
    else parts.push(prose(n));
    left -= n;
  }
  if (withCode) {
    const lines = 4 + Math.floor(rand() * 12);
    parts.splice(1, 0, '```python\n' + Array.from({ length: lines }, (_, i) => `def ${word()}_${i}(x):\n    return x + ${i}`).join('\n') + '\n```');
  }
  return parts.join('\n\n');
}
function conversation(count) {
  const t0 = 1_700_000_000;
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? { role: 'user', content: prose(40 + Math.floor(rand() * 560)), timestamp: t0 + i * 30, attachments: [] }
      : { role: 'assistant', content: answer(200 + Math.floor(rand() * 2800), i % 8 === 1), timestamp: t0 + i * 30 + 10 },
  );
}

/** The renderer of `rev` compiled into .cache/thread-<commit>/renderer beside this build's static files and vendor assets. */
function referenceRenderer(rev) {
  const commit = execFileSync('git', ['rev-parse', '--short', rev], { encoding: 'utf8' }).trim();
  const root = path.resolve('.cache', `thread-${commit}`);
  const out = path.join(root, 'renderer');
  if (!fs.existsSync(path.join(out, 'app.js'))) {
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(path.join(root, 'src'), { recursive: true });
    const tar = execFileSync('git', ['archive', commit, 'renderer'], { maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', path.join(root, 'src')], { input: tar });
    fs.cpSync(path.resolve('dist', 'renderer', 'vendor'), path.join(out, 'vendor'), { recursive: true });
    for (const name of fs.readdirSync(path.join(root, 'src', 'renderer'))) {
      if (/\.(html|css|svg|png|ico|webmanifest)$/.test(name)) fs.cpSync(path.join(root, 'src', 'renderer', name), path.join(out, name));
    }
    // node_modules resolve from the project (.cache is inside it); type errors do not stop tsc from emitting.
    spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', path.join(root, 'src', 'renderer', 'tsconfig.json'), '--outDir', out], { stdio: 'ignore', timeout: RENDERER_BUILD_TIMEOUT_MS });
    if (!fs.existsSync(path.join(out, 'app.js'))) throw new Error(`the renderer of ${rev} did not build`);
  }
  return { commit, out };
}

const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function startServer(stateDir, staticDir) {
  const url = new URL(`file://${path.resolve('dist', 'server', 'index.js')}`).href;
  const script = `const { startServer } = await import(${JSON.stringify(url)});
const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, staticDir: ${JSON.stringify(staticDir)}, token: ${JSON.stringify(TOKEN)}, maxUploadBytes: ${values.import ? IMPORT_MAX_BYTES : 1 << 20}, preloadSpeech: false });
console.log(JSON.stringify({ port: s.port }));
process.on('SIGTERM', () => s.close().then(() => process.exit(0)));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' } });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('server did not start')), START_DEADLINE_MS);
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl === -1) return;
      clearTimeout(timer);
      const { port } = JSON.parse(out.slice(0, nl));
      resolve({ base: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

/** Installed before the page's scripts: every long task and long animation frame from the start, with its scripts. */
function observeLongFrames() {
  const w = window;
  w.__long = { tasks: [], frames: [] };
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) w.__long.tasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries())
        w.__long.frames.push({
          start: e.startTime,
          duration: e.duration,
          // Where the frame's time went: scripts before rendering, rAF callbacks, then style and layout (and paint).
          work: Math.round((e.renderStart || e.startTime + e.duration) - e.startTime),
          layout: Math.round(e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0),
          scripts: (e.scripts ?? []).map((s) => ({ where: s.sourceFunctionName || s.invoker, url: s.sourceURL.replace(/^.*\//, ''), ms: Math.round(s.duration) })),
        });
    }).observe({ type: 'long-animation-frame', buffered: true });
  } catch {
    // A Chromium without LoAF: the longtask entries and rAF deltas still stand.
  }
}

/** Scroll the thread to the top and back down by STEP_PX a frame; every frame's duration (rAF deltas). */
async function scrollEndToEnd(page) {
  return page.evaluate(async (step) => {
    const el = document.querySelector('#messages');
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const deltas = [];
    let last = await frame();
    const tick = async () => {
      const t = await frame();
      deltas.push(t - last);
      last = t;
    };
    const since = performance.now();
    let maxNodes = 0;
    // Up to the first message, then down to the last; the end is where scrollTop stops moving.
    for (const dir of [-1, 1]) {
      for (let stuck = 0; stuck < 3; ) {
        const before = el.scrollTop;
        el.scrollTop = before + dir * step;
        await tick();
        stuck = el.scrollTop === before ? stuck + 1 : 0;
        if (deltas.length % 50 === 0) maxNodes = Math.max(maxNodes, document.getElementsByTagName('*').length);
      }
    }
    const long = window.__long.frames.filter((f) => f.start >= since);
    return { deltas, maxNodes, loaf: long.map((f) => f.duration), script: Math.max(0, ...long.flatMap((f) => f.scripts.map((x) => x.ms))), worst: long.sort((a, b) => b.duration - a.duration).slice(0, 5) };
  }, STEP_PX);
}

/** Self time by function from a CDP CPU profile: the top `n` (BENCH_PROFILE=1 prints them for this build). */
function topSelfTime(profile, n = 15) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, ms]) => `${ms.toFixed(0).padStart(6)} ms  ${name}`).join('\n');
}

async function profiled(page, on, what, run) {
  if (!on) return run();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const result = await run();
  const { profile } = await cdp.send('Profiler.stop');
  console.error(`--- ${what}: self time by function\n${topSelfTime(profile)}`);
  return result;
}

/** The conversation read once whole, so the open measured finds it kept by the server, whichever page asks. */
async function warm(base, sessionId) {
  const res = await fetch(`${base}/api/session?session_id=${sessionId}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  if (!res.ok) throw new Error(`warm read: ${res.status}`);
  await res.arrayBuffer();
}

/** POST /api/session/import of `exported` (a Satchel export); the new conversation's id. */
async function importConversation(base, exported) {
  const form = new FormData();
  form.append('file', new Blob([JSON.stringify(exported)], { type: 'application/json' }), 'long.json');
  const res = await fetch(`${base}/api/session/import`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` }, body: form });
  const text = await res.text();
  if (!res.ok) throw new Error(`import: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text).session.session_id;
}

async function measure(browser, base, sessionId, label, count = MESSAGES) {
  const profile = Boolean(process.env.BENCH_PROFILE) && label === 'this build';
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  await page.addInitScript(observeLongFrames);
  // A page that crashed never shows the last message: say so at once rather than at the deadline.
  const crashed = new Promise((_, reject) => page.once('crash', () => reject(new Error(`${label}: the page crashed`))));
  crashed.catch(() => undefined);
  page.on('pageerror', (e) => console.error(`${label}: page error: ${e.message}`));
  // The access cookie first (the token link), then the conversation: the open below is the conversation's alone.
  await page.goto(`${base}/?token=${TOKEN}`);
  await page.waitForSelector('[data-testid="app"][data-ready="true"]', { timeout: OPEN_DEADLINE_MS });
  await page.goto('about:blank');
  if (values.import) await warm(base, sessionId);
  // Every GET /api/session of the open: how many, and the largest answer the page parsed.
  const reads = [];
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (url.pathname === '/api/session' && res.request().method() === 'GET') reads.push(res.body().then((b) => b.length, () => 0));
  });
  const started = Date.now();
  await profiled(page, profile, 'opening', async () => {
  await page.goto(`${base}/#s=${sessionId}`);
  await Promise.race([crashed, page.waitForFunction(
    (n) => {
      const el = document.querySelector('#messages');
      const last = el?.querySelector(`[data-message-index="${n - 1}"]`) ?? [...(el?.querySelectorAll('[data-testid="message"]') ?? [])].pop();
      if (!el || !last || el.querySelectorAll('[data-testid="message"]').length === 0) return false;
      const box = last.getBoundingClientRect();
      const view = el.getBoundingClientRect();
      // On screen with its text (its end may be below: a reply taller than the thread, or a composer that grew
      // after the thread was placed).
      return box.top < view.bottom && box.bottom > view.top && last.textContent.length > 0;
    },
    count,
    { timeout: OPEN_DEADLINE_MS, polling: 100 },
  )]);
  });
  const openMs = Date.now() - started;
  const readBytes = await Promise.all(reads);
  const open = await page.evaluate(() => ({
    nodes: document.getElementsByTagName('*').length,
    messages: document.querySelectorAll('#messages [data-testid="message"]').length,
    longest: Math.max(0, ...window.__long.tasks.map((t) => t.duration)),
    frames: window.__long.frames.filter((f) => f.duration > 50).map((f) => ({ ms: Math.round(f.duration), scripts: f.scripts.filter((s) => s.ms > 5) })),
  }));
  const scroll = values['open-only'] ? { deltas: [0], loaf: [], script: 0, maxNodes: open.nodes, worst: [] } : await profiled(page, profile, 'scrolling', () => scrollEndToEnd(page));
  await context.close();
  const over = scroll.deltas.filter((d) => d > BUDGET_MS).length;
  const row = { label, openMs, ...open, reads: readBytes.length, readMax: Math.max(0, ...readBytes), frames: scroll.deltas.length, max: Math.max(...scroll.deltas), p95: pct(scroll.deltas, 95), over, loafMax: Math.max(0, ...scroll.loaf), script: scroll.script, maxNodes: scroll.maxNodes };
  console.error(
    `${label}: open ${openMs} ms (longest task ${Math.round(open.longest)} ms; ${row.reads} session reads, largest ${row.readMax} bytes), ${open.nodes} elements (${open.messages} messages); scroll ${row.frames} frames, max ${row.max.toFixed(1)} ms, p95 ${row.p95.toFixed(1)} ms, ${over} over ${BUDGET_MS} ms, LoAF max ${row.loafMax.toFixed(0)} ms, longest script in a frame ${row.script} ms`,
  );
  if (process.env.BENCH_VERBOSE) console.error(JSON.stringify({ openFrames: open.frames, worstScrollFrame: scroll.worst }, null, 1));
  return row;
}

const root = await tempDir('satchel-bench-thread-');
const stateDir = path.join(root, 'state');
fs.mkdirSync(path.join(stateDir, 'sessions'), { recursive: true });
let sessionId = 'abcdef012345';
/** With --import, a conversation of FLOOR_MESSAGES opened the same way by each build: what opening costs the page
 * whatever the conversation (its scripts, the sidebar, the first rows drawn), beside the long one. */
const FLOOR_MESSAGES = 10;
let floorId = null;
const at = new Date(1_700_000_000_000).toISOString();
if (values.import) {
  const server = await startServer(stateDir, path.resolve('dist', 'renderer'));
  try {
    // The floor first: the newest conversation is the one the page opens at its start (the token link).
    floorId = await importConversation(server.base, { satchel_export: 1, title: 'A short conversation', created_at: at, updated_at: at, messages: conversation(FLOOR_MESSAGES), attachments: [] });
    sessionId = await importConversation(server.base, { satchel_export: 1, title: 'A long conversation', created_at: at, updated_at: at, messages: conversation(MESSAGES), attachments: [] });
  } finally {
    await server.stop();
  }
} else {
  fs.writeFileSync(
    path.join(stateDir, 'sessions', `${sessionId}.json`),
    JSON.stringify({ session_id: sessionId, title: 'A long conversation', workspace: root, profile: 'default', created_at: at, updated_at: at, messages: conversation(MESSAGES), attachments: [] }),
  );
}
const builds = values['reference-only'] ? [] : [{ label: 'this build', staticDir: path.resolve('dist', 'renderer') }];
if (!values['no-reference']) {
  const reference = referenceRenderer(values.compare);
  builds.push({ label: `${values.compare} (${reference.commit})`, staticDir: reference.out });
}
const browser = await chromium.launch({ executablePath: process.env.SATCHEL_E2E_CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const results = new Map(builds.flatMap((b) => [[b.label, []], ...(values.import ? [[`${b.label}, floor: ${FLOOR_MESSAGES} messages`, []]] : [])]));
try {
  for (let run = 0; run < RUNS; run++) {
    for (const b of builds) {
      const server = await startServer(stateDir, b.staticDir);
      try {
        results.get(b.label).push(await measure(browser, server.base, sessionId, b.label));
        if (floorId) results.get(`${b.label}, floor: ${FLOOR_MESSAGES} messages`).push(await measure(browser, server.base, floorId, `${b.label} floor`, FLOOR_MESSAGES));
      } finally {
        await server.stop();
      }
    }
  }
} finally {
  await browser.close();
  fs.rmSync(root, { recursive: true, force: true });
}

console.log(`\nThread: ${MESSAGES.toLocaleString('en')} messages, scrolled top to bottom and back ${STEP_PX} px a frame; medians of ${RUNS} (${machine()})\n`);
console.log('| build | open (ms) | longest task opening (ms) | session reads / largest answer (bytes) | elements in the DOM | message elements | frames | max frame (ms) | p95 frame (ms) | frames over 50 ms | longest animation frame (ms) | longest script in a frame (ms) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const [label, rows] of results) {
  const m = (k) => median(rows.map((r) => r[k]));
  console.log(`| ${label} | ${m('openMs').toFixed(0)} | ${m('longest').toFixed(0)} | ${m('reads').toFixed(0)} / ${m('readMax').toFixed(0)} | ${m('nodes').toFixed(0)} | ${m('messages').toFixed(0)} | ${m('frames').toFixed(0)} | ${m('max').toFixed(1)} | ${m('p95').toFixed(1)} | ${m('over').toFixed(0)} | ${m('loafMax').toFixed(0)} | ${m('script').toFixed(0)} |`);
}
