// One large upload at a time: Satchel's POST /api/upload beside the floor (a bare Node server that streams the request
// body to a file), each a fresh server pinned to core 0, the client on core 1. Runs alternate (which side goes first
// alternates too); the ratio is per pair of runs, the median over the pairs. Also the server's peak memory over its
// idle size and its CPU time per upload (/proc). The concurrent case is bench/concurrency.mjs.
// `--warm N`: one server per side for the whole run, N uploads to each before the measured ones (a server's first
// upload pays for compiling the upload path, ~300-600 ms of a 200 MiB upload's CPU here: the fresh figure counts
// it in every pair). `--node-args="<flags>"`: node's (V8's) flags for Satchel's process, e.g. a heap growing factor.
//   npm run build && node bench/upload.mjs [--pairs 5] [--sizes 200] [--warm 2] [--dist <another build's dist/>] [--node-args="--flag ..."]
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { currentRssMiB, machine, median, peakRssMiB, tempDir } from './lib.mjs';
import { cpuMs, MIB, startFloor, startSatchel, upload } from './upload-lib.mjs';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '5' },
    sizes: { type: 'string', default: '200' },
    dist: { type: 'string' },
    warm: { type: 'string', default: '0' },
    'node-args': { type: 'string', default: '' },
  },
});
const pairs = Number(values.pairs);
const sizesMiB = values.sizes.split(',').map(Number);
const warm = Number(values.warm);
const nodeArgs = values['node-args'].split(' ').filter(Boolean);
/** Time for the fresh server to settle before its idle size is read. */
const SETTLE_MS = 300;

async function start(kind, dir) {
  return kind === 'satchel' ? startSatchel(values.dist, dir, { nodeArgs }) : startFloor(dir);
}

/** One upload of `size` bytes to `server`: wall, MB/s, the server's CPU for it, its peak RSS over `idle`. */
async function measure(kind, server, size, idle) {
  const cpu0 = await cpuMs(server.child.pid);
  const { ms, body } = await upload(server.info.port, { pathname: kind === 'satchel' ? '/api/upload' : '/upload', sessionId: server.info.id, size });
  const cpu = (await cpuMs(server.child.pid)) - cpu0;
  const stored = (await fsp.stat(body.path)).size;
  // The floor stores the whole body, multipart framing included; Satchel the file alone.
  if (kind === 'satchel' ? stored !== size : stored < size) throw new Error(`${kind} stored ${stored} bytes, expected ${size}`);
  // A warm run keeps its servers: the bytes go, so a long run does not fill the disk.
  if (warm > 0) await fsp.rm(body.path);
  return { mbps: size / MIB / (ms / 1000), ms, cpu, rss: (await peakRssMiB(server.child.pid)) - idle };
}

/** A fresh server for one upload. */
async function once(kind, work, size) {
  const dir = await fsp.mkdtemp(path.join(work, `${kind}-`));
  const server = await start(kind, dir);
  try {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    return await measure(kind, server, size, await currentRssMiB(server.child.pid));
  } finally {
    server.child.kill();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** One server per side for the run, `warm` uploads each first; `run(kind)` measures one upload on it. */
async function warmServers(work, size) {
  const servers = {};
  for (const kind of ['satchel', 'floor']) {
    const server = await start(kind, await fsp.mkdtemp(path.join(work, `${kind}-`)));
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const idle = await currentRssMiB(server.child.pid);
    for (let i = 0; i < warm; i++) await measure(kind, server, size, idle);
    servers[kind] = { server, idle };
  }
  return {
    run: (kind) => measure(kind, servers[kind].server, size, servers[kind].idle),
    stop: () => Object.values(servers).forEach(({ server }) => server.child.kill()),
  };
}

const work = await tempDir('satchel-bench-upload-');
const rows = [];
try {
  for (const mib of sizesMiB) {
    const got = { satchel: [], floor: [], ratio: [], cpuRatio: [] };
    const servers = warm > 0 ? await warmServers(work, mib * MIB) : undefined;
    try {
      for (let i = 0; i < pairs; i++) {
        const order = i % 2 === 0 ? ['satchel', 'floor'] : ['floor', 'satchel'];
        const pair = {};
        for (const kind of order) pair[kind] = servers ? await servers.run(kind) : await once(kind, work, mib * MIB);
        got.satchel.push(pair.satchel);
        got.floor.push(pair.floor);
        got.ratio.push(pair.satchel.mbps / pair.floor.mbps);
        got.cpuRatio.push(pair.satchel.cpu / Math.max(pair.floor.cpu, 1));
      }
    } finally {
      servers?.stop();
    }
    const med = (xs, key) => median(xs.map((x) => x[key]));
    rows.push({ mib, s: got.satchel, f: got.floor, ratios: got.ratio, cpuRatios: got.cpuRatio, med });
  }
} finally {
  await fsp.rm(work, { recursive: true, force: true });
}

const how = warm > 0 ? `one warm server per side (${warm} uploads each first)` : 'a fresh server per upload';
console.log(`# Upload — ${machine()}; ${pairs} alternating pairs, ${how}, medians; servers pinned to core 0, client on core 1${nodeArgs.length ? `; Satchel's node flags: ${nodeArgs.join(' ')}` : ''}`);
console.log('| upload | server CPU per upload Satchel / floor | CPU ratio (median of pairs) | Satchel MB/s (ms) | floor MB/s (ms) | MB/s ratio (median of pairs) | peak RSS over idle Satchel / floor |');
console.log('|---|---|---|---|---|---|---|');
for (const { mib, s, f, ratios, cpuRatios, med } of rows) {
  console.log(
    `| ${mib} MiB | ${med(s, 'cpu').toFixed(0)} / ${med(f, 'cpu').toFixed(0)} ms | **${median(cpuRatios).toFixed(2)}** (pairs: ${cpuRatios.map((x) => x.toFixed(2)).join(', ')}) ` +
      `| ${med(s, 'mbps').toFixed(0)} (${med(s, 'ms').toFixed(0)}) | ${med(f, 'mbps').toFixed(0)} (${med(f, 'ms').toFixed(0)}) ` +
      `| ${median(ratios).toFixed(2)} (pairs: ${ratios.map((x) => x.toFixed(2)).join(', ')}) | ${med(s, 'rss').toFixed(1)} / ${med(f, 'rss').toFixed(1)} MiB |`,
  );
}
