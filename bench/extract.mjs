// Extraction benchmark: Satchel's archive engine against `unzip -q` and `tar -xzf` on the same archives, in
// the same run, alternating so machine noise hits both alike. Uses the compiled engine:
//   npx tsc -p tsconfig.json --noEmitOnError false && node bench/extract.mjs [runs]
// Prints a Markdown table of medians and ratios (ours / CLI).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yazl from 'yazl';

const RUNS = Math.max(5, Number(process.argv[2]) || 7);
const SMALL_FILES = 2000;
const SMALL_DIRS = 20;
const LARGE_FILES = 5;
const LARGE_BYTES = 4 * 1024 * 1024;
const MAX_BYTES = 1024 * 1024 * 1024;

const here = path.dirname(fileURLToPath(import.meta.url));
const engine = await import(path.join(here, '..', 'dist', 'server', 'archive', 'index.js'));

/** Text-like content: compresses the way source files and documents do, not like zeros or noise. */
function textish(length, seed) {
  const words = ['satchel', 'archive', 'session', 'upload', 'extract', 'stream', 'buffer', 'token', 'const', 'return'];
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

async function buildTree(dir, kind) {
  const files = {};
  if (kind === 'small') {
    for (let i = 0; i < SMALL_FILES; i++) files[`d${i % SMALL_DIRS}/f${i}.txt`] = textish(512 + ((i * 37) % 3584), i + 1);
  } else {
    for (let i = 0; i < LARGE_FILES; i++) files[`big${i}.bin`] = textish(LARGE_BYTES, i + 100);
  }
  for (const [rel, data] of Object.entries(files)) {
    await fsp.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fsp.writeFile(path.join(dir, rel), data);
  }
  return files;
}

async function buildZip(files, file) {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(files)) zip.addBuffer(data, name);
  zip.end();
  await new Promise((resolve, reject) => {
    zip.outputStream.pipe(fs.createWriteStream(file)).on('close', resolve).on('error', reject);
  });
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

async function timeOurs(archive, name, base) {
  const started = performance.now();
  const dest = await engine.allocateExtractionDir(base, name);
  const result = await engine.extractArchive(archive, name, dest, base, { maxBytes: MAX_BYTES });
  const ms = performance.now() - started;
  await fsp.rm(dest, { recursive: true, force: true });
  return { ms, count: result.extracted };
}

function timeCli(cmd, args, out) {
  fs.mkdirSync(out);
  const started = performance.now();
  const r = spawnSync(cmd, [...args(out)], { stdio: 'inherit' });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${cmd} failed`);
  fs.rmSync(out, { recursive: true, force: true });
  return ms;
}

const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-bench-'));
const rows = [];
try {
  for (const kind of ['small', 'large']) {
    const src = path.join(root, `src-${kind}`);
    const files = await buildTree(src, kind);
    const zipFile = path.join(root, `${kind}.zip`);
    const tgzFile = path.join(root, `${kind}.tar.gz`);
    await buildZip(files, zipFile);
    execFileSync('tar', ['-czf', tgzFile, '-C', src, '.']);
    const cases = [
      { label: `zip, ${kind === 'small' ? `${SMALL_FILES} small files` : `${LARGE_FILES} × 4 MiB`}`, archive: zipFile, name: `${kind}.zip`, cli: 'unzip -q', run: (out) => timeCli('unzip', (o) => ['-q', zipFile, '-d', o], out) },
      { label: `tar.gz, ${kind === 'small' ? `${SMALL_FILES} small files` : `${LARGE_FILES} × 4 MiB`}`, archive: tgzFile, name: `${kind}.tar.gz`, cli: 'tar -xzf', run: (out) => timeCli('tar', (o) => ['-xzf', tgzFile, '-C', o], out) },
    ];
    for (const c of cases) {
      const base = path.join(root, 'base');
      await fsp.mkdir(base, { recursive: true });
      const ours = [];
      const cli = [];
      // One warm-up of each, not counted (page cache, JIT).
      await timeOurs(c.archive, c.name, base);
      c.run(path.join(root, 'cli-out'));
      for (let i = 0; i < RUNS; i++) {
        const r = await timeOurs(c.archive, c.name, base);
        if (r.count !== Object.keys(files).length) throw new Error(`extracted ${r.count} of ${Object.keys(files).length}`);
        ours.push(r.ms);
        cli.push(c.run(path.join(root, 'cli-out')));
      }
      const size = fs.statSync(c.archive).size;
      rows.push({ label: c.label, size, cliName: c.cli, ours: median(ours), cli: median(cli) });
    }
  }
} finally {
  await fsp.rm(root, { recursive: true, force: true });
}

console.log(`Runs per case: ${RUNS} (medians), node ${process.version}, ${os.cpus().length} cores`);
console.log('');
console.log('| archive | size | Satchel (ms) | CLI | CLI (ms) | ratio |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.label} | ${(r.size / 1024).toFixed(0)} KiB | ${r.ours.toFixed(1)} | \`${r.cliName}\` | ${r.cli.toFixed(1)} | ${(r.ours / r.cli).toFixed(2)}× |`);
}
