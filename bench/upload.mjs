// Upload throughput and server memory: Satchel's POST /api/upload beside a bare Node server that streams the
// request body to a file (the floor), both pinned to core 0, the client on core 1, in one run.
//   npm run build && node bench/upload.mjs [--runs 3] [--sizes 1,100,1024]
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machine, median, peakRssMiB, currentRssMiB, startChild, tempDir } from './lib.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, sizes: { type: 'string', default: '1,100,1024' } } });
const runs = Number(values.runs);
const sizesMiB = values.sizes.split(',').map(Number);
const TOKEN = 'bench-token';
const BOUNDARY = 'benchBoundary';
const MIB = 1024 * 1024;

const satchelScript = (stateDir) => `
  import { startServer } from ${JSON.stringify(new URL('../dist/server/index.js', import.meta.url).href)};
  const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: '${TOKEN}', maxUploadBytes: 2048 * 1024 * 1024 });
  const res = await fetch(s.origin + '/api/session/new', { method: 'POST', body: '{}', headers: { Authorization: 'Bearer ${TOKEN}' } });
  console.log(JSON.stringify({ port: s.port, id: (await res.json()).session.session_id }));
`;
const bareScript = (dir) => `
  import http from 'node:http';
  import fs from 'node:fs';
  import { pipeline } from 'node:stream/promises';
  let n = 0;
  const s = http.createServer(async (req, res) => {
    const file = ${JSON.stringify(dir)} + '/upload-' + (n++);
    await pipeline(req, fs.createWriteStream(file, { flags: 'wx' }));
    const body = JSON.stringify({ path: file });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: s.address().port })));
`;

function upload(port, pathname, sessionId, source, size) {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="session_id"\r\n\r\n${sessionId}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="payload.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: pathname,
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': head.length + size + tail.length },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${pathname}: ${res.statusCode} ${Buffer.concat(chunks)}`));
          resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, body: JSON.parse(Buffer.concat(chunks).toString()) });
        });
      },
    );
    req.on('error', reject);
    req.write(head);
    const stream = typeof source === 'string' ? fs.createReadStream(source, { highWaterMark: MIB }) : null;
    if (stream) {
      stream.on('end', () => req.end(tail));
      stream.pipe(req, { end: false });
    } else {
      req.write(source);
      req.end(tail);
    }
  });
}

async function makePayload(dir, size) {
  const file = path.join(dir, `payload-${size}`);
  const block = Buffer.alloc(MIB);
  for (let i = 0; i < MIB; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
  const out = fs.createWriteStream(file);
  for (let written = 0; written < size; written += MIB) if (!out.write(block.subarray(0, Math.min(MIB, size - written)))) await new Promise((r) => out.once('drain', r));
  await new Promise((r) => out.end(r));
  return file;
}

const work = await tempDir('satchel-bench-upload-');
const rows = [];
try {
  for (const mib of sizesMiB) {
    const size = mib * MIB;
    const payload = await makePayload(work, size);
    const ours = { mbps: [], rss: [] };
    const floor = { mbps: [], rss: [] };
    for (let i = 0; i < runs; i++) {
      for (const [kind, acc] of [['satchel', ours], ['bare', floor]]) {
        const dir = await fsp.mkdtemp(path.join(work, `${kind}-`));
        const server = kind === 'satchel' ? await startChild(satchelScript(dir), { core: 0 }) : await startChild(bareScript(dir), { core: 0 });
        await new Promise((r) => setTimeout(r, 300));
        const idle = await currentRssMiB(server.child.pid);
        const pathname = kind === 'satchel' ? '/api/upload' : '/upload';
        const { ms, body } = await upload(server.info.port, pathname, server.info.id ?? '', payload, size);
        const peak = await peakRssMiB(server.child.pid);
        const stored = (await fsp.stat(body.path)).size;
        if (kind === 'satchel' && stored !== size) throw new Error(`${kind} stored ${stored} bytes, expected ${size}`);
        acc.mbps.push(size / MIB / (ms / 1000));
        acc.rss.push(peak - idle);
        server.child.kill();
        await fsp.rm(dir, { recursive: true, force: true });
      }
    }
    await fsp.rm(payload);
    rows.push({ name: `${mib} MiB`, ours: median(ours.mbps), floor: median(floor.mbps), rss: median(ours.rss), floorRss: median(floor.rss) });
  }

  // 32 concurrent 1 MiB uploads, repeated: requests/s and p99 latency.
  const one = Buffer.alloc(MIB, 7);
  const concurrent = {};
  for (const kind of ['satchel', 'bare']) {
    const dir = await fsp.mkdtemp(path.join(work, `${kind}-c-`));
    const server = kind === 'satchel' ? await startChild(satchelScript(dir), { core: 0 }) : await startChild(bareScript(dir), { core: 0 });
    const rps = [];
    const p99 = [];
    for (let i = 0; i < runs; i++) {
      const started = Date.now();
      const results = await Promise.all(Array.from({ length: 32 }, () => upload(server.info.port, kind === 'satchel' ? '/api/upload' : '/upload', server.info.id ?? '', one, MIB)));
      rps.push(32 / ((Date.now() - started) / 1000));
      const lat = results.map((r) => r.ms).sort((a, b) => a - b);
      p99.push(lat[Math.ceil(lat.length * 0.99) - 1]);
    }
    concurrent[kind] = { rps: median(rps), p99: median(p99) };
    server.child.kill();
  }

  console.log(`# Upload benchmark — ${machine()}; ${runs} runs, medians; servers pinned to core 0, client on core 1`);
  console.log('| upload | Satchel MB/s | bare stream-to-file MB/s | ratio | Satchel peak RSS over idle | bare peak RSS over idle |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${r.ours.toFixed(0)} | ${r.floor.toFixed(0)} | ${(r.ours / r.floor).toFixed(2)} | ${r.rss.toFixed(1)} MiB | ${r.floorRss.toFixed(1)} MiB |`);
  console.log('');
  console.log('| 32 concurrent 1 MiB uploads | requests/s | p99 latency |');
  console.log('|---|---|---|');
  for (const [k, v] of Object.entries(concurrent)) console.log(`| ${k === 'bare' ? 'bare stream-to-file' : 'Satchel'} | ${v.rps.toFixed(1)} | ${v.p99.toFixed(0)} ms |`);
} finally {
  await fsp.rm(work, { recursive: true, force: true });
}
