// Issue 36: the session's workspace as each turn gives it (server/context/workspace.ts) is a bounded walk. A
// workspace of `--files` files (default 100,000, in folders of 1,000) costs what one of MAX_WORKSPACE_ENTRIES_WALKED
// entries costs (the floor, measured in the same run): the walk stops at that many entries or after
// MAX_WORKSPACE_WALK_MS, and the listing says so.
// Usage: npm run build && node bench/workspace-walk.mjs [--files 100000] [--runs 7]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { arg, median } from './lib.mjs';

const FILES = Number(arg('--files', 100_000));
const RUNS = Number(arg('--runs', 7));
const PER_FOLDER = 1000;
const ws = await import(new URL('../dist/server/context/workspace.js', import.meta.url).href);

/** A workspace of `n` small files, `PER_FOLDER` to a folder. */
function makeWorkspace(n) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-ws-bench-'));
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, `d${String(Math.floor(i / PER_FOLDER)).padStart(4, '0')}`);
    if (i % PER_FOLDER === 0) fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, `f${i}.txt`), 'x');
  }
  return root;
}

async function times(root) {
  const out = [];
  let last;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    last = await ws.workspaceContext(root, 'bench', undefined);
    out.push(performance.now() - t0);
  }
  return { ms: median(out), max: Math.max(...out), total: last.total, tail: last.listing.split('\n').at(-1) };
}

// The floor: a workspace the walk sees whole, just under its entry bound (files plus their folders).
const floorFiles = ws.MAX_WORKSPACE_ENTRIES_WALKED - Math.ceil(ws.MAX_WORKSPACE_ENTRIES_WALKED / PER_FOLDER) - 1;
const small = makeWorkspace(floorFiles);
const big = makeWorkspace(FILES);
try {
  const floor = await times(small);
  const huge = await times(big);
  console.log(`workspace walk, median of ${RUNS} (max), node ${process.version}`);
  console.log(`  ${floorFiles} files (floor, seen whole): ${floor.ms.toFixed(1)} ms (${floor.max.toFixed(1)}), total ${floor.total}`);
  console.log(`  ${FILES} files: ${huge.ms.toFixed(1)} ms (${huge.max.toFixed(1)}), total ${huge.total}, ratio ${(huge.ms / floor.ms).toFixed(2)}`);
  console.log(`  its listing ends: ${huge.tail}`);
} finally {
  fs.rmSync(small, { recursive: true, force: true });
  fs.rmSync(big, { recursive: true, force: true });
}
