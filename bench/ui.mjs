// Web UI costs: (1) the Markdown previewer's parse time on a sidecar at the server's 120,000-character cap;
// (2) an upload through the UI (Debian Chromium, XHR with per-file progress) beside the same bytes POSTed
// straight from Node to the same server: the ratio is what the browser path costs.
//   npm run build && node bench/ui.mjs [--runs 5] [--mib 100]
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machine, median, tempDir } from './lib.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, mib: { type: 'string', default: '100' } } });
const RUNS = Number(values.runs);
const MIB = 1024 * 1024;
const SIZE = Number(values.mib) * MIB;
const SIDECAR_CHARS = 120_000;
const entry = path.resolve(process.env.SATCHEL_E2E_ENTRY || 'dist/main/index.js');

// --- 1. Markdown parse -----------------------------------------------------------------------------------
const { parseMarkdown } = await import(new URL('../dist/renderer/markdown.js', import.meta.url).href);
let doc = '';
for (let i = 0; doc.length < SIDECAR_CHARS; i++) {
  doc += `## Section ${i}\n\nRevenue for **region ${i}** grew by *${i % 13}* percent, see \`table ${i}\` and [the notes](https://example.com/${i}).\n\n`;
  doc += `| Item | Q1 | Q2 |\n| :--- | ---: | ---: |\n| widgets | ${i} | ${i * 2} |\n| gadgets | ${i + 1} | ${i * 3} |\n\n- first point\n- second point\n  - nested\n\n`;
}
doc = doc.slice(0, SIDECAR_CHARS);
const parseMs = [];
for (let r = 0; r < Math.max(RUNS, 5) * 4; r++) {
  const t = performance.now();
  parseMarkdown(doc);
  parseMs.push(performance.now() - t);
}

// --- 2. Upload through the UI vs. direct ------------------------------------------------------------------
const root = await tempDir('satchel-bench-ui-');
const stateDir = path.join(root, 'state');
const ws = path.join(root, 'ws');
fs.mkdirSync(stateDir);
fs.mkdirSync(ws);
const file = path.join(root, 'payload.bin');
fs.writeFileSync(file, Buffer.alloc(SIZE, 7));

const server = spawn(process.execPath, [entry, '--server-only', '--port', '0', '--state-dir', stateDir], {
  env: { ...process.env, SATCHEL_WEBUI_DEFAULT_WORKSPACE: ws, SATCHEL_WEBUI_MAX_UPLOAD_MB: '2048', SATCHEL_WEBUI_TOKEN: '' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { base, token } = await new Promise((resolve, reject) => {
  let out = '';
  const timer = setTimeout(() => reject(new Error('server did not start in 30 s')), 30_000);
  server.stdout.on('data', (d) => {
    out += d;
    const m = /Satchel is running at (http:\/\/[^\s/]+)\/\?token=(\S+)/.exec(out);
    if (m) {
      clearTimeout(timer);
      server.stdout.resume();
      resolve({ base: m[1], token: m[2] });
    }
  });
  server.on('exit', (c) => reject(new Error(`server exited ${c}`)));
});

async function newSession() {
  const res = await fetch(`${base}/api/session/new`, { method: 'POST', body: JSON.stringify({ workspace: ws }), headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } });
  return (await res.json()).session.session_id;
}

function direct(sessionId, name) {
  const B = 'benchBoundary';
  const head = Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="session_id"\r\n\r\n${sessionId}\r\n--${B}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${B}--\r\n`);
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = http.request(`${base}/api/upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': `multipart/form-data; boundary=${B}`, 'Content-Length': head.length + SIZE + tail.length },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t) : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.write(head);
    const rs = fs.createReadStream(file, { highWaterMark: 1 << 20 });
    rs.on('data', (c) => { if (!req.write(c)) { rs.pause(); req.once('drain', () => rs.resume()); } });
    rs.on('end', () => req.end(tail));
  });
}

const browser = await chromium.launch({
  executablePath: process.env.SATCHEL_E2E_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await browser.newPage();
await page.goto(`${base}/?token=${token}`);
await page.waitForSelector('#app[data-ready="true"]', { timeout: 20_000 });

const uiMs = [];
const directMs = [];
const progressEvents = [];
try {
  for (let r = 0; r < RUNS; r++) {
    // Alternate the order so neither path always runs on a warmer page cache.
    const order = r % 2 ? ['ui', 'direct'] : ['direct', 'ui'];
    for (const kind of order) {
      const id = await newSession();
      if (kind === 'direct') {
        directMs.push(await direct(id, `direct-${r}.bin`));
        continue;
      }
      await page.goto(`${base}/#s=${id}`);
      await page.waitForSelector('#app[data-ready="true"]', { timeout: 20_000 });
      await page.evaluate(() => {
        window.__ticks = 0;
        new MutationObserver(() => window.__ticks++).observe(document.getElementById('attachments'), { subtree: true, characterData: true, childList: true });
      });
      const t = performance.now();
      await page.setInputFiles('[data-testid="file-input"]', file);
      await page.waitForSelector('[data-testid="attachment-chip"][data-status="done"]', { timeout: 120_000 });
      uiMs.push(performance.now() - t);
      progressEvents.push(await page.evaluate(() => window.__ticks));
    }
  }
} finally {
  await browser.close();
  server.kill('SIGTERM');
}
fs.rmSync(root, { recursive: true, force: true });

const mibps = (ms) => (SIZE / MIB / (ms / 1000)).toFixed(0);
const out = {
  machine: machine(),
  markdown: { chars: doc.length, median_parse_ms: +median(parseMs).toFixed(2) },
  upload: {
    mib: SIZE / MIB,
    runs: RUNS,
    ui_median_ms: Math.round(median(uiMs)),
    direct_median_ms: Math.round(median(directMs)),
    ui_mib_s: +mibps(median(uiMs)),
    direct_mib_s: +mibps(median(directMs)),
    ui_over_direct: +(median(uiMs) / median(directMs)).toFixed(2),
    median_dom_updates: median(progressEvents),
  },
};
console.log(JSON.stringify(out, null, 2));
