// Issue 35: the search index takes what the agent is sent, up to MAX_INDEXED_ATTACHMENT_CHARS (4 Mi characters,
// was 100,000). What that costs, against this build's server (dist/, or --dist DIR) in a child process with its
// own state folder: POST /api/upload of a 100,000-character log (the old limit) and of a 4 MiB one (each indexed,
// redacted, before the answer; run against the build before issue 35 with --dist for the floor), the slowest
// GET /health sent every 50 ms during the big upload (what waits on the redaction), and a search for a word on the log's first line (the floor) against one 3.5 million characters in
// (its snippet found by store/search-far.ts).
// Usage: npm run build && node bench/attachment-text-index.mjs [--reps 5] [--dist DIR]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, machine, median, startChild } from './lib.mjs';

const REPS = Number(arg('--reps', 5));
const DIST = path.resolve(arg('--dist', 'dist'));
const TOKEN = 'e'.repeat(43);

function log(chars, tail) {
  const lines = ['2026-11-28T10:00:00Z INFO boot heronfirst service started'];
  let n = lines[0].length;
  let added = false;
  for (let i = 0; n < chars; i++) {
    const line = `2026-11-28T10:00:${String(i % 60).padStart(2, '0')}Z INFO worker-${i % 7} handled request ${i} in ${(i * 37) % 900} ms`;
    lines.push(line);
    n += line.length + 1;
    if (tail && n > 3_500_000 && !added) {
      lines.push(tail);
      added = true;
    }
  }
  return lines.join('\n') + '\n';
}

const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-bench-index-'));
const module = new URL(`file://${path.join(DIST, 'server', 'index.js')}`).href;
const { child, info } = await startChild(
  `const { startServer } = await import(${JSON.stringify(module)});
const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: ${JSON.stringify(TOKEN)}, maxUploadBytes: 64 << 20, preloadSpeech: false });
console.log(JSON.stringify({ port: s.port }));`,
);
const base = `http://127.0.0.1:${info.port}`;
const auth = { Authorization: `Bearer ${TOKEN}`, Origin: base };
const timed = async (run) => {
  const t = performance.now();
  const res = await run();
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  const body = await res.json();
  return { ms: performance.now() - t, body };
};
const upload = (sessionId, name, text) => {
  const form = new FormData();
  form.append('session_id', sessionId);
  form.append('file', new Blob([text], { type: 'text/plain' }), name);
  return timed(() => fetch(`${base}/api/upload`, { method: 'POST', headers: auth, body: form }));
};
const search = (q) => timed(() => fetch(`${base}/api/search?q=${encodeURIComponent(q)}`, { headers: auth }));

try {
  const small = log(100_000);
  const big = log(4 * 1024 * 1024 - 1024, '2026-11-28T11:00:00Z ERROR worker-3 wombatfar checksum mismatch');
  const t = { small: [], big: [], health: [], head: [], far: [] };
  for (let r = 0; r < REPS; r++) {
    const { body: s } = await timed(() => fetch(`${base}/api/session/new`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({}) }));
    const id = s.session_id ?? s.session?.session_id;
    t.small.push((await upload(id, `small-${r}.log`, small)).ms);
    let uploading = true;
    const bigUpload = upload(id, `big-${r}.log`, big).finally(() => (uploading = false));
    let slowest = 0;
    while (uploading) {
      slowest = Math.max(slowest, (await timed(() => fetch(`${base}/health`, { headers: auth }))).ms);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.health.push(slowest);
    t.big.push((await bigUpload).ms);
    const head = await search('heronfirst');
    const far = await search('wombatfar');
    // The build before issue 35 indexed the first 100,000 characters: the far word is not found there.
    if (!far.body.results?.some((h) => h.snippet.some((x) => x.match))) console.log(`the far word was not found with its snippet: ${JSON.stringify(far.body).slice(0, 300)}`);
    t.head.push(head.ms);
    t.far.push(far.ms);
  }
  const m = (xs) => median(xs).toFixed(0);
  console.log(`machine: ${machine()}; ${REPS} reps, medians`);
  console.log(`upload 100,000-char log (floor): ${m(t.small)} ms; 4 MiB log: ${m(t.big)} ms (${(median(t.big) / median(t.small)).toFixed(1)}×)`);
  console.log(`slowest GET /health during the 4 MiB upload: ${m(t.health)} ms`);
  console.log(`search, word on the first line (floor): ${m(t.head)} ms; word 3.5 M characters in: ${m(t.far)} ms (${(median(t.far) / median(t.head)).toFixed(1)}×)`);
} finally {
  child.kill('SIGTERM');
  fs.rmSync(stateDir, { recursive: true, force: true });
}
