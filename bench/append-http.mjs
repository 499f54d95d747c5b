// One bound of issue 24 on its own: POST /api/session/message with `answer: "summary"` into a conversation of
// `--messages` rows, against one of 10 rows, over HTTP to this build's server (dist/) in this process. bench/store.mjs
// measures the same appends right after 200 appends answered whole (10 MB each), whose garbage the collector
// is still clearing then; here nothing comes before them but the conversation's own appends.
// Usage: npm run build && node bench/append-http.mjs [--messages 9400] [--appends 600] [--runs 3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, median, pct } from './lib.mjs';

const MESSAGES = Number(arg('--messages', 9400));
const APPENDS = Number(arg('--appends', 600));
const RUNS = Number(arg('--runs', 3));
const TOKEN = 'b'.repeat(43);
const WORDS = 'the plan for the garden budget meeting travel recipe python error server deploy invoice summary draft'.split(' ');
const text = (n) => Array.from({ length: n }, (_, i) => WORDS[(i * 7) % WORDS.length]).join(' ');

const { startServer } = await import(new URL('../dist/server/index.js', import.meta.url).href);

/** Appends' times (ms) into a new conversation first filled with `rows` messages, each request until its answer. */
async function measure(rows) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-append-'));
  const server = await startServer({ host: '127.0.0.1', port: 0, stateDir, token: TOKEN, maxUploadBytes: 1 << 20, preloadSpeech: false });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}`, Origin: base };
    const post = async (p, body) => {
      const res = await fetch(base + p, { method: 'POST', headers, body: JSON.stringify(body) });
      const answer = await res.text();
      if (!res.ok) throw new Error(`${p}: ${res.status} ${answer}`);
      return JSON.parse(answer);
    };
    const { session } = await post('/api/session/new', {});
    const append = (words) => post('/api/session/message', { session_id: session.session_id, text: text(words), answer: 'summary' });
    for (let i = 0; i < rows; i++) await append(20 + (i % 200));
    const times = [];
    for (let i = 0; i < APPENDS; i++) {
      const started = performance.now();
      await append(50);
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    await server.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

const rows = { long: [], short: [] };
for (let run = 0; run < RUNS; run++) {
  // Alternated, so the machine's load falls on both alike.
  rows.long.push(await measure(MESSAGES));
  rows.short.push(await measure(10));
}
const line = (name, runs) =>
  `| ${name} | ${median(runs.map((t) => median(t))).toFixed(2)} | ${median(runs.map((t) => pct(t, 95))).toFixed(2)} | ${median(runs.map((t) => pct(t, 99))).toFixed(2)} |`;
console.log(`load: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}; ${APPENDS} appends a run, medians of ${RUNS} runs`);
console.log('| conversation | median ms | p95 ms | p99 ms |\n|---|---|---|---|');
console.log(line(`${MESSAGES} messages`, rows.long));
console.log(line('10 messages', rows.short));
process.exit(0);
