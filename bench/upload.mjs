// One large upload at a time: Satchel's POST /api/upload beside the busboy floor (bare node:http + busboy + a write
// stream: bench/upload-busboy-floor.mjs) and the floor (a bare Node server that streams the request body to a file),
// each a fresh server pinned to core 0, the client on core 1. Runs rotate (which side goes first rotates too); the
// ratios are per round of runs, the median over the rounds: Satchel / floor, busboy / floor and Satchel / busboy. Also the server's peak memory over its
// idle size and its CPU time per upload (/proc). The concurrent case is bench/concurrency.mjs.
// `--warm N`: one server per side for the whole run, N uploads to each before the measured ones (a server's first
// upload pays for compiling the upload path, ~300-600 ms of a 200 MiB upload's CPU here: the fresh figure counts
// it in every pair). `--node-args="<flags>"`: node's (V8's) flags for Satchel's process, e.g. a heap growing factor.
//   npm run build && node bench/upload.mjs [--pairs 5] [--sizes 200] [--warm 2] [--dist <another build's dist/>] [--node-args="--flag ..."]
//   [--busboy-defaults: the busboy floor with busboy's own 16 KiB buffers instead of Satchel's 1 MiB]
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { currentRssMiB, machine, median, peakRssMiB, tempDir } from './lib.mjs';
import { BUSBOY_FLOOR_SCRIPT, cpuMs, KINDS, MIB, startFloor, startSatchel, upload, uploadPath } from './upload-lib.mjs';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '5' },
    sizes: { type: 'string', default: '200' },
    dist: { type: 'string' },
    warm: { type: 'string', default: '0' },
    'node-args': { type: 'string', default: '' },
    'busboy-defaults': { type: 'boolean', default: false },
  },
});
const pairs = Number(values.pairs);
const sizesMiB = values.sizes.split(',').map(Number);
const warm = Number(values.warm);
const nodeArgs = values['node-args'].split(' ').filter(Boolean);
/** Time for the fresh server to settle before its idle size is read. */
const SETTLE_MS = 300;

async function start(kind, dir) {
  if (kind === 'satchel') return startSatchel(values.dist, dir, { nodeArgs });
  if (kind === 'busboy') return startFloor(dir, { script: BUSBOY_FLOOR_SCRIPT, args: values['busboy-defaults'] ? ['--busboy-defaults'] : [] });
  return startFloor(dir);
}

/** One upload of `size` bytes to `server`: wall, MB/s, the server's CPU for it, its peak RSS over `idle`. */
async function measure(kind, server, size, idle) {
  const cpu0 = await cpuMs(server.child.pid);
  const { ms, body } = await upload(server.info.port, { pathname: uploadPath(kind), sessionId: server.info.id, size });
  const cpu = (await cpuMs(server.child.pid)) - cpu0;
  const stored = (await fsp.stat(body.path)).size;
  // The floor stores the whole body, multipart framing included; Satchel and busboy the file alone.
  if (kind === 'floor' ? stored < size : stored !== size) throw new Error(`${kind} stored ${stored} bytes, expected ${size}`);
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
  for (const kind of KINDS) {
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
    const got = { satchel: [], busboy: [], floor: [], ratio: [], cpuRatio: [], busboyCpu: [], overBusboyCpu: [] };
    const servers = warm > 0 ? await warmServers(work, mib * MIB) : undefined;
    try {
      for (let i = 0; i < pairs; i++) {
        // Each side goes first in turn.
        const order = KINDS.map((_, k) => KINDS[(i + k) % KINDS.length]);
        const round = {};
        for (const kind of order) round[kind] = servers ? await servers.run(kind) : await once(kind, work, mib * MIB);
        for (const kind of KINDS) got[kind].push(round[kind]);
        got.ratio.push(round.satchel.mbps / round.floor.mbps);
        got.cpuRatio.push(round.satchel.cpu / Math.max(round.floor.cpu, 1));
        got.busboyCpu.push(round.busboy.cpu / Math.max(round.floor.cpu, 1));
        got.overBusboyCpu.push(round.satchel.cpu / Math.max(round.busboy.cpu, 1));
      }
    } finally {
      servers?.stop();
    }
    const med = (xs, key) => median(xs.map((x) => x[key]));
    rows.push({ mib, s: got.satchel, b: got.busboy, f: got.floor, ratios: got.ratio, cpuRatios: got.cpuRatio, busboyCpu: got.busboyCpu, overBusboyCpu: got.overBusboyCpu, med });
  }
} finally {
  await fsp.rm(work, { recursive: true, force: true });
}

const how = warm > 0 ? `one warm server per side (${warm} uploads each first)` : 'a fresh server per upload';
const list = (xs) => xs.map((x) => x.toFixed(2)).join(', ');
console.log(`# Upload — ${machine()}; ${pairs} rounds (sides rotating), ${how}, medians; servers pinned to core 0, client on core 1${nodeArgs.length ? `; Satchel's node flags: ${nodeArgs.join(' ')}` : ''}${values['busboy-defaults'] ? "; busboy floor with busboy's default buffers" : ''}`);
console.log('| upload | server CPU per upload Satchel / busboy floor / floor | CPU Satchel ÷ floor (rounds) | busboy ÷ floor | Satchel ÷ busboy | MB/s Satchel / busboy / floor (ms) | MB/s ratio Satchel ÷ floor | peak RSS over idle Satchel / busboy / floor |');
console.log('|---|---|---|---|---|---|---|---|');
for (const { mib, s, b, f, ratios, cpuRatios, busboyCpu, overBusboyCpu, med } of rows) {
  console.log(
    `| ${mib} MiB | ${med(s, 'cpu').toFixed(0)} / ${med(b, 'cpu').toFixed(0)} / ${med(f, 'cpu').toFixed(0)} ms | **${median(cpuRatios).toFixed(2)}** (${list(cpuRatios)}) ` +
      `| ${median(busboyCpu).toFixed(2)} (${list(busboyCpu)}) | ${median(overBusboyCpu).toFixed(2)} (${list(overBusboyCpu)}) ` +
      `| ${med(s, 'mbps').toFixed(0)} (${med(s, 'ms').toFixed(0)}) / ${med(b, 'mbps').toFixed(0)} (${med(b, 'ms').toFixed(0)}) / ${med(f, 'mbps').toFixed(0)} (${med(f, 'ms').toFixed(0)}) ` +
      `| ${median(ratios).toFixed(2)} (${list(ratios)}) | ${med(s, 'rss').toFixed(1)} / ${med(b, 'rss').toFixed(1)} / ${med(f, 'rss').toFixed(1)} MiB |`,
  );
}
