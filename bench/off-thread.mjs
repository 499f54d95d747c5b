// Issue 37, finding 8: what OCR leaves in the server's process, its worker a thread of the process (main before
// session 14, and the desktop app) or a thread in a child process (off-thread.ts under Node). Each mode runs in a fresh
// process of its own (this file again, --mode): the built engine reads a rendered letter page and a 1280×800
// screenshot ROUNDS times, the engine is closed, and after SETTLE_MS the process's resident memory and its CPU
// (utime+stime of the process and of its reaped children, /proc/self/stat) are read; the first recognition's wall
// time (a cold engine: thread or process, core, model) and the warm ones' median beside. The modes alternate.
// With --before <dist of another build> the modes are that build's child and this build's child (session 15: the
// image's preparation moved from the server's process into the child).
// Usage: npm run build && node bench/off-thread.mjs [--pairs 3] [--rounds 3] [--before .cache/x/dist]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { machine, median } from './lib.mjs';

const { values } = parseArgs({ options: { pairs: { type: 'string', default: '3' }, rounds: { type: 'string', default: '3' }, mode: { type: 'string' }, before: { type: 'string' }, dist: { type: 'string' } } });
/** After the engine is closed: the thread or child gone, the allocator's trims done. */
const SETTLE_MS = 3_000;
const CLK_TCK = 100;

const status = () => Object.fromEntries(fs.readFileSync('/proc/self/status', 'utf8').split('\n').map((l) => l.split(/:\s+/)).filter((p) => p.length === 2));
const kibToMib = (v) => Number(String(v).split(' ')[0]) / 1024;
/** CPU seconds of this process and of its children that have been waited for. */
function cpu() {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // After the ") ": state is field 3, so utime (14) is index 11, stime 12, cutime 13, cstime 14.
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]) / CLK_TCK);
  return { self: utime + stime, children: cutime + cstime };
}

if (values.mode) {
  const dist = values.dist ? new URL(`file://${path.resolve(values.dist)}/server/`) : new URL('../dist/server/', import.meta.url);
  const { createOcrEngine } = await import(new URL('ocr/engine.js', dist).href);
  const { defaultChildHost } = await import(new URL('workspace/off-thread.js', dist).href);
  const { renderPage, renderScreenshot, prose } = await import(new URL('ocr/testing/render.js', dist).href);
  const page = await renderPage(prose(120), { points: 11, dpi: 150 });
  const shot = await renderScreenshot();
  const childHost = values.mode !== 'thread' ? defaultChildHost() : null;
  if (values.mode !== 'thread' && !childHost) throw new Error('no compiled host: npm run build');
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const start = { rss: kibToMib(status().VmRSS), anon: kibToMib(status().RssAnon), cpu: cpu() };
  // Deadlines far past the loaded machine's 30-65 s recognitions: this measures memory, not time budgets.
  const engine = createOcrEngine({ childHost, timeoutMs: 600_000, loadTimeoutMs: 600_000 });
  const walls = [];
  let words = 0;
  for (let i = 0; i < Number(values.rounds); i++) {
    for (const image of [page.png, shot.png]) {
      const t = performance.now();
      words += (await engine.recognizeImage(image)).words;
      walls.push(performance.now() - t);
    }
  }
  const peak = kibToMib(status().VmHWM);
  await engine.close();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const st = status();
  const end = cpu();
  process.stdout.write(JSON.stringify({ startRss: start.rss, startAnon: start.anon, endRss: kibToMib(st.VmRSS), endAnon: kibToMib(st.RssAnon), peak, threads: Number(st.Threads), cold: walls[0], warm: median(walls.slice(1)), words, cpuSelf: end.self - start.cpu.self, cpuChildren: end.children - start.cpu.children }));
  process.exit(0);
}

function run(mode) {
  return new Promise((resolve, reject) => {
    const dist = mode === 'before' ? ['--dist', values.before] : [];
    const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--mode', mode, '--rounds', values.rounds, ...dist], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${mode} exited ${code}`))));
  });
}

const first = values.before ? 'before' : 'thread';
const results = { [first]: [], child: [] };
for (let i = 0; i < Number(values.pairs); i++) {
  for (const mode of i % 2 ? ['child', first] : [first, 'child']) results[mode].push(await run(mode));
}
const label = { thread: 'a thread of the process (before)', before: `a thread in a child process, ${values.before}`, child: 'a thread in a child process (this build)' };
const f = (x) => x.toFixed(1);
const m = (mode, k) => median(results[mode].map((r) => r[k]));
console.log(`${machine()}; ${values.pairs} runs per mode, ${values.rounds} × (letter page + screenshot) each; medians`);
console.log('| worker | RSS before, MiB | RSS after the engine closed | added | RssAnon added | peak (VmHWM) | CPU s: process / children | first recognition s | warm median s | words |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const mode of [first, 'child']) {
  console.log(`| ${label[mode]} | ${f(m(mode, 'startRss'))} | ${f(m(mode, 'endRss'))} | **${f(m(mode, 'endRss') - m(mode, 'startRss'))}** | ${f(m(mode, 'endAnon') - m(mode, 'startAnon'))} | ${f(m(mode, 'peak'))} | ${m(mode, 'cpuSelf').toFixed(2)} / ${m(mode, 'cpuChildren').toFixed(2)} | ${(m(mode, 'cold') / 1000).toFixed(2)} | ${(m(mode, 'warm') / 1000).toFixed(2)} | ${m(mode, 'words')} |`);
}
console.log(`every run: ${JSON.stringify(results)}`);
