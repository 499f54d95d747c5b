// Extraction benchmark: Satchel's archive engine against bsdtar and unzip on archives made by the real tools
// (Info-ZIP `zip -r`, GNU tar piped through pbzip2 / pigz / xz), in the same run, alternating so machine
// noise hits both alike. Uses the compiled engine:
//   npm run build && node bench/extract.mjs [runs] [archive name filter, e.g. zip or bz2]
// (SATCHEL_DIST=<dir> points at another compiled tree; SATCHEL_BASELINE_DIST=<dir> also times an earlier
// build in the same alternation.) Prints a Markdown table of medians and ratios.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Math.max(3, Number(process.argv[2]) || 7);
const ONLY = process.argv[3] ?? '';
// A source tree shaped like a release tarball or a project checkout: mostly text, some binaries.
const TEXT_FILES = 1647;
const BINARY_FILES = 183;
const BINARY_BYTES = 100 * 1024;
const DIRS = 61;
const MAX_BYTES = 1024 * 1024 * 1024;

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = process.env.SATCHEL_DIST ?? path.join(here, '..', 'dist');
const engine = await import(path.join(dist, 'server', 'archive', 'index.js'));
const baseline = process.env.SATCHEL_BASELINE_DIST ? await import(path.join(path.resolve(process.env.SATCHEL_BASELINE_DIST), 'server', 'archive', 'index.js')) : null;

/** Text-like content: compresses the way source files and documents do, not like zeros or noise. */
function textish(length, seed) {
  const words = ['satchel', 'archive', 'session', 'upload', 'extract', 'stream', 'buffer', 'token', 'const', 'return', 'function', 'import'];
  let x = seed >>> 0 || 1;
  const parts = [];
  let size = 0;
  while (size < length) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const w = words[x % words.length] + (x % 7 === 0 ? '\n' : ' ') + (x % 13 === 0 ? String(x) : '');
    parts.push(w);
    size += w.length;
  }
  return Buffer.from(parts.join('').slice(0, length));
}

function noise(length, seed) {
  const out = Buffer.allocUnsafe(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

async function buildTree(dir) {
  let count = 0;
  for (let i = 0; i < TEXT_FILES + BINARY_FILES; i++) {
    const binary = i % 10 === 9 && i / 10 < BINARY_FILES;
    const rel = `d${i % DIRS}/${binary ? `blob${i}.bin` : `f${i}.txt`}`;
    await fsp.mkdir(path.join(dir, path.dirname(rel)), { recursive: true });
    await fsp.writeFile(path.join(dir, rel), binary ? noise(BINARY_BYTES, i + 1) : textish(2048 + ((i * 997) % 14336), i + 1));
    count++;
  }
  return count;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

async function timeOurs(archive, name, base, build = engine) {
  const started = performance.now();
  const dest = await build.allocateExtractionDir(base, name);
  const result = await build.extractArchive(archive, name, dest, base, { maxBytes: MAX_BYTES });
  const ms = performance.now() - started;
  await fsp.rm(dest, { recursive: true, force: true });
  return { ms, count: result.extracted };
}

function timeCli(cmd, args, out) {
  fs.mkdirSync(out);
  const started = performance.now();
  const r = spawnSync(cmd, args(out), { stdio: 'inherit' });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${cmd} failed`);
  fs.rmSync(out, { recursive: true, force: true });
  return ms;
}

const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-bench-'));
const rows = [];
try {
  const src = path.join(root, 'src');
  const files = await buildTree(src);
  const pipe = (tool, args, out) => fs.writeFileSync(out, execFileSync(tool, args, { input: execFileSync('tar', ['-cf', '-', '-C', src, '.'], { maxBuffer: 1 << 30 }), maxBuffer: 1 << 30 }));
  const archives = [
    { label: '`zip -r`', name: 'tree.zip', make: (o) => execFileSync('zip', ['-qr', o, '.'], { cwd: src }), refs: ['bsdtar', 'unzip'] },
    { label: 'GNU tar + pbzip2', name: 'tree.tar.bz2', make: (o) => pipe('pbzip2', ['-c'], o), refs: ['bsdtar'] },
    { label: 'GNU tar + pigz', name: 'tree.tar.gz', make: (o) => pipe('pigz', ['-c'], o), refs: ['bsdtar'] },
    { label: 'GNU tar + xz', name: 'tree.tar.xz', make: (o) => pipe('xz', ['-c'], o), refs: ['bsdtar'] },
  ];
  const cli = {
    bsdtar: (file) => (o) => ['-xf', file, '-C', o],
    unzip: (file) => (o) => ['-q', file, '-d', o],
  };
  for (const a of archives.filter((x) => x.name.includes(ONLY))) {
    const file = path.join(root, a.name);
    a.make(file);
    const base = path.join(root, 'base');
    await fsp.mkdir(base, { recursive: true });
    const ours = [];
    const before = [];
    const refs = Object.fromEntries(a.refs.map((r) => [r, []]));
    // One warm-up of each, not counted (page cache, JIT).
    await timeOurs(file, a.name, base);
    if (baseline) await timeOurs(file, a.name, base, baseline);
    for (const r of a.refs) timeCli(r, cli[r](file), path.join(root, 'cli-out'));
    for (let i = 0; i < RUNS; i++) {
      const r = await timeOurs(file, a.name, base);
      if (r.count !== files) throw new Error(`extracted ${r.count} of ${files}`);
      ours.push(r.ms);
      if (baseline) before.push((await timeOurs(file, a.name, base, baseline)).ms);
      for (const ref of a.refs) refs[ref].push(timeCli(ref, cli[ref](file), path.join(root, 'cli-out')));
    }
    for (const ref of a.refs) {
      rows.push({ label: a.label, size: fs.statSync(file).size, ours: median(ours), before: baseline ? median(before) : 0, cliName: ref, cli: median(refs[ref]) });
    }
  }
} finally {
  await fsp.rm(root, { recursive: true, force: true });
}

console.log(`Runs per case: ${RUNS} (medians), ${TEXT_FILES + BINARY_FILES} files, node ${process.version}, ${os.cpus().length} cores`);
console.log('');
const extra = (r) => (baseline ? ` ${r.before.toFixed(0)} | ${(r.before / r.cli).toFixed(2)}× |` : '');
console.log(`| archive | size | Satchel (ms) | reference | reference (ms) | ratio |${baseline ? ' previous build (ms) | its ratio |' : ''}`);
console.log(`|---|---|---|---|---|---|${baseline ? '---|---|' : ''}`);
for (const r of rows) {
  console.log(`| ${r.label} | ${(r.size / 1024 / 1024).toFixed(1)} MiB | ${r.ours.toFixed(0)} | \`${r.cliName}\` | ${r.cli.toFixed(0)} | ${(r.ours / r.cli).toFixed(2)}× |${extra(r)}`);
}
