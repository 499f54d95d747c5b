// One large upload at a time: Satchel's POST /api/upload beside the floor (a bare Node server that streams the request
// body to a file), each a fresh server pinned to core 0, the client on core 1. Runs alternate (which side goes first
// alternates too); the ratio is per pair of runs, the median over the pairs. Also the server's peak memory over its
// idle size and its CPU time per upload (/proc). The concurrent case is bench/concurrency.mjs.
//   npm run build && node bench/upload.mjs [--pairs 5] [--sizes 200] [--dist <another build's dist/>]
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { currentRssMiB, machine, median, peakRssMiB, tempDir } from './lib.mjs';
import { cpuMs, MIB, startFloor, startSatchel, upload } from './upload-lib.mjs';

const { values } = parseArgs({
  options: { pairs: { type: 'string', default: '5' }, sizes: { type: 'string', default: '200' }, dist: { type: 'string' } },
});
const pairs = Number(values.pairs);
const sizesMiB = values.sizes.split(',').map(Number);
/** Time for the fresh server to settle before its idle size is read. */
const SETTLE_MS = 300;

async function once(kind, work, size) {
  const dir = await fsp.mkdtemp(path.join(work, `${kind}-`));
  const server = kind === 'satchel' ? await startSatchel(values.dist, dir) : await startFloor(dir);
  try {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const idle = await currentRssMiB(server.child.pid);
    const cpu0 = await cpuMs(server.child.pid);
    const { ms, body } = await upload(server.info.port, { pathname: kind === 'satchel' ? '/api/upload' : '/upload', sessionId: server.info.id, size });
    const cpu = (await cpuMs(server.child.pid)) - cpu0;
    const stored = (await fsp.stat(body.path)).size;
    // The floor stores the whole body, multipart framing included; Satchel the file alone.
    if (kind === 'satchel' ? stored !== size : stored < size) throw new Error(`${kind} stored ${stored} bytes, expected ${size}`);
    return { mbps: size / MIB / (ms / 1000), ms, cpu, rss: (await peakRssMiB(server.child.pid)) - idle };
  } finally {
    server.child.kill();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

const work = await tempDir('satchel-bench-upload-');
const rows = [];
try {
  for (const mib of sizesMiB) {
    const got = { satchel: [], floor: [], ratio: [] };
    for (let i = 0; i < pairs; i++) {
      const order = i % 2 === 0 ? ['satchel', 'floor'] : ['floor', 'satchel'];
      const pair = {};
      for (const kind of order) pair[kind] = await once(kind, work, mib * MIB);
      got.satchel.push(pair.satchel);
      got.floor.push(pair.floor);
      got.ratio.push(pair.satchel.mbps / pair.floor.mbps);
    }
    const med = (xs, key) => median(xs.map((x) => x[key]));
    rows.push({ mib, s: got.satchel, f: got.floor, ratios: got.ratio, med });
  }
} finally {
  await fsp.rm(work, { recursive: true, force: true });
}

console.log(`# Upload — ${machine()}; ${pairs} alternating pairs, medians; servers pinned to core 0, client on core 1`);
console.log('| upload | Satchel MB/s (ms) | floor MB/s (ms) | ratio (median of pairs) | server CPU per upload Satchel / floor | peak RSS over idle Satchel / floor |');
console.log('|---|---|---|---|---|---|');
for (const { mib, s, f, ratios, med } of rows) {
  console.log(
    `| ${mib} MiB | ${med(s, 'mbps').toFixed(0)} (${med(s, 'ms').toFixed(0)}) | ${med(f, 'mbps').toFixed(0)} (${med(f, 'ms').toFixed(0)}) ` +
      `| **${median(ratios).toFixed(2)}** (pairs: ${ratios.map((x) => x.toFixed(2)).join(', ')}) | ${med(s, 'cpu').toFixed(0)} / ${med(f, 'cpu').toFixed(0)} ms ` +
      `| ${med(s, 'rss').toFixed(1)} / ${med(f, 'rss').toFixed(1)} MiB |`,
  );
}
