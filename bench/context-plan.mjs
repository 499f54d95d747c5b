// Issue 36's bound on retrieval: the time a turn's request takes to build over a conversation of 20 earlier
// documents (PDFs, one of 150 pages, Markdown and text files), their texts already read (DocTexts holds them
// from their own turns), against the same turn with no earlier document (the same rows, nothing attached): the
// difference is what keeping the documents available costs a turn (plan, passages, BM25, the history walk).
// The first build (every document read from disk, PDFs parsed) is reported apart: a conversation's documents
// are read once per run of the app, in their own turn.
// Usage: npx tsc -p tsconfig.json && node bench/context-plan.mjs [--turns 60] [--budget 200000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, median, pct } from './lib.mjs';

const TURNS = Number(arg('--turns', 60));
const BUDGET = Number(arg('--budget', 200_000));
const dist = (p) => new URL(`../dist/server/${p}`, import.meta.url).href;
const { buildTurnMessages } = await import(dist('agent/input.js'));
const { DocTexts } = await import(dist('context/doc-text.js'));
const { buildPdf } = await import(dist('workspace/testing/pdf.js'));

const WORDS = 'the pump warranty revenue region forecast depot shipping invoice contract clause seal bearing filter intake budget quarter meeting schedule supplier delivery payment tax audit report summary risk'.split(' ');
const words = (n, seed) => Array.from({ length: n }, (_, i) => WORDS[(i * 7 + seed * 13 + ((i * seed) % 5)) % WORDS.length]).join(' ');
const page = (seed, lines = 30) => `BT /F1 9 Tf 40 760 Td ${Array.from({ length: lines }, (_, i) => `(${words(8, seed + i)}) Tj 0 -11 Td`).join(' ')} ET`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-context-plan-'));
const root = path.join(dir, 'attachments', 'bench');
fs.mkdirSync(root, { recursive: true });
function file(name, data, mime) {
  const p = path.join(root, name);
  fs.writeFileSync(p, data);
  return { kind: 'file', filename: name, path: p, mime, size: fs.statSync(p).size, is_image: false };
}
const docs = [];
docs.push(file('manual-150-pages.pdf', buildPdf({ pages: Array.from({ length: 150 }, (_, i) => page(i)), compress: true }), 'application/pdf'));
for (let i = 0; i < 4; i++) docs.push(file(`report-${i}.pdf`, buildPdf({ pages: Array.from({ length: 6 + i * 3 }, (_, p) => page(100 + i * 20 + p)) }), 'application/pdf'));
for (let i = 0; i < 8; i++) docs.push(file(`notes-${i}.md`, Array.from({ length: 12 }, (_, s) => `# Section ${s}\n\n${words(150 + i * 20, i * 31 + s)}\n\n${words(90, s)}`).join('\n\n'), 'text/markdown'));
for (let i = 0; i < 7; i++) docs.push(file(`log-${i}.txt`, Array.from({ length: 200 + i * 60 }, (_, l) => `2026-11-26T12:${String(l % 60).padStart(2, '0')} ${words(9, l + i)}`).join('\n'), 'text/plain'));

const T = 1_800_000_000;
const rows = (attach) =>
  docs.flatMap((d, i) => [
    { role: 'user', content: `Here is ${d.filename}, what do you make of it?`, timestamp: T + i * 10, attachments: attach ? [d] : [] },
    { role: 'assistant', content: words(60, i), timestamp: T + i * 10 + 5 },
  ]);
const withDocs = rows(true);
const without = rows(false);
const config = { baseUrl: 'http://127.0.0.1:1', model: 'm', kind: 'openai', idleTimeoutMs: 1000, contextChars: BUDGET };
const QUESTIONS = ['What does the manual say about the pump warranty on page 42?', 'Which supplier delivery clause applies to the depot?', 'summarize the audit risk', 'what was the tax payment schedule for the quarter?'];

const texts = new DocTexts();
const opts = { roots: [root], sessionId: 'bench', docTexts: texts };
let t = performance.now();
const first = await buildTurnMessages(withDocs, QUESTIONS[0], [], config, opts);
const firstMs = performance.now() - t;

/** Wall times (ms) of `TURNS` builds; their CPU times (ms, this process's) go to `cpu`: a loaded machine's
 *  preemptions lengthen the first, not the second. */
async function timed(history, cpu = []) {
  const out = [];
  for (let i = 0; i < TURNS; i++) {
    const q = QUESTIONS[i % QUESTIONS.length];
    const c = process.cpuUsage();
    t = performance.now();
    await buildTurnMessages(history, q, [], config, opts);
    out.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  return out;
}
// Warm both paths once, then alternate blocks so load on the shared machine falls on both alike.
await timed(without);
const a = [];
const b = [];
const ac = [];
const bc = [];
for (let block = 0; block < 3; block++) {
  a.push(...(await timed(withDocs, ac)));
  b.push(...(await timed(without, bc)));
}
const chars = docs.reduce((n, d) => n + (fs.statSync(d.path).size), 0);
const states = first.report.documents.reduce((m, d) => ((m[d.state] = (m[d.state] ?? 0) + 1), m), {});
const f = (x) => x.toFixed(1);
console.log(`20 documents (${(chars / 1024).toFixed(0)} KiB on disk), budget ${BUDGET}; first turn's report: ${JSON.stringify(states)}, ${first.report.summary}`);
console.log(`first build (every document read from disk): ${f(firstMs)} ms; DocTexts holds ${texts.heldChars} characters`);
console.log(`with 20 earlier documents: median ${f(median(a))} ms, p95 ${f(pct(a, 95))} ms (${a.length} turns)`);
console.log(`no earlier documents (floor): median ${f(median(b))} ms, p95 ${f(pct(b, 95))} ms (${b.length} turns)`);
console.log(`CPU time: with documents median ${f(median(ac))} ms, p95 ${f(pct(ac, 95))} ms; floor median ${f(median(bc))} ms, p95 ${f(pct(bc, 95))} ms`);
console.log(`load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (2 cores)`);
console.log(`slowest with documents: ${[...a].sort((x, y) => y - x).slice(0, 12).map(f).join(", ")}`);
console.log(`added by retrieval: median ${f(median(a) - median(b))} ms, p95 ${f(pct(a, 95) - pct(b, 95))} ms`);
fs.rmSync(dir, { recursive: true, force: true });
