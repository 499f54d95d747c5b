#!/usr/bin/env node
// npm run package:check — packages the app for Linux the way `npm run dist` would, offline, and checks what an
// installed user gets. No Electron binary can be downloaded here, so electron-builder packages against a
// stand-in Electron distribution: a tiny executable carrying the fuse wire (so the fuse step really runs and
// can be read back), the `version` file and Electron's LICENSE (the files electron-builder copies or moves).
// Then: the asar holds only what runs, native bindings only for linux-x64, the model under resources/, the
// fuses as configured, the package within its size budget, and the asar, extracted, starts the server under
// plain Node with only the packaged production dependencies.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'package.json'));
const asar = require('@electron/asar');
const { getCurrentFuseWire, FuseV1Options } = require('@electron/fuses');
const { SENTINEL, FuseState } = require('@electron/fuses/dist/constants.js');

/** The whole package (unpacked dir, model included) may not grow past this without someone noticing. */
const SIZE_BUDGET_BYTES = 100 * 1024 * 1024;
/** app.asar alone: the compiled app and its production JavaScript dependencies (23.2 MiB when set). */
const ASAR_BUDGET_BYTES = 25 * 1024 * 1024;
/** The only top-level entries the asar may hold. */
const ASAR_TOP_LEVEL = ['dist', 'node_modules', 'package.json'];
/** The only folders under dist/ (the build output of main/, preload/, renderer/, server/). */
const DIST_FOLDERS = ['main', 'preload', 'renderer', 'server'];
const TARGET = { platform: 'linux', arch: 'x64' };
const SERVER_START_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
const TOP_ENTRIES = 10;
/** Electron's own defaults for the 8 v1 fuses ('1' enabled, '0' disabled), as a fresh binary carries them. */
const STOCK_FUSE_WIRE = '10110001';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const electronVersion = pkg.devDependencies.electron;
const failures = [];
const fail = (message) => failures.push(message);
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function makeStandInElectron(dir) {
  mkdirSync(dir, { recursive: true });
  const wire = Buffer.concat([Buffer.from(SENTINEL, 'ascii'), Buffer.from([1, STOCK_FUSE_WIRE.length]), Buffer.from(STOCK_FUSE_WIRE, 'ascii')]);
  const executable = path.join(dir, 'electron');
  writeFileSync(executable, Buffer.concat([Buffer.from('#!/bin/sh\n# stand-in Electron for npm run package:check\nexit 0\n# '), wire, Buffer.from('\n')]));
  chmodSync(executable, 0o755);
  writeFileSync(path.join(dir, 'version'), electronVersion);
  writeFileSync(path.join(dir, 'LICENSE'), 'Stand-in for Electron’s LICENSE\n');
  mkdirSync(path.join(dir, 'resources'));
}

function build(electronDist, outDir) {
  const result = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'electron-builder', 'cli.js'),
      '--linux',
      'dir',
      `--${TARGET.arch}`,
      `-c.electronDist=${electronDist}`,
      `-c.electronVersion=${electronVersion}`,
      `-c.directories.output=${outDir}`,
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } },
  );
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`electron-builder exited with ${result.status}`);
  }
}

function walk(dir, base = dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, base, out);
    else out.push({ path: path.relative(base, full), size: statSync(full).size });
  }
  return out;
}

/** Names of every installed package in the production dependency tree (`npm ls --omit=dev`). */
function productionModules() {
  const result = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm ls failed: ${result.stderr}`);
  const names = new Set();
  for (const line of result.stdout.split('\n')) {
    const at = line.lastIndexOf(`node_modules${path.sep}`);
    if (at !== -1) names.add(line.slice(at + 'node_modules/'.length).split(path.sep).join('/'));
  }
  return names;
}

function checkAsar(asarPath, unpackedDir) {
  const entries = asar.listPackage(asarPath, { isPack: false }).map((p) => p.replace(/^[\\/]/, '').split(path.sep).join('/'));
  const topLevel = [...new Set(entries.map((p) => p.split('/')[0]))].sort();
  const extra = topLevel.filter((name) => !ASAR_TOP_LEVEL.includes(name));
  if (extra.length) fail(`app.asar holds top-level entries outside the allowlist: ${extra.join(', ')}`);
  const distFolders = [...new Set(entries.filter((p) => p.startsWith('dist/')).map((p) => p.split('/')[1]))];
  const extraDist = distFolders.filter((name) => !DIST_FOLDERS.includes(name));
  if (extraDist.length) fail(`app.asar holds dist/ entries outside the allowlist: ${extraDist.join(', ')}`);
  const bad = (label, test) => {
    const hits = entries.filter(test);
    if (hits.length) fail(`app.asar holds ${hits.length} ${label}, e.g. ${hits.slice(0, 3).join(', ')}`);
  };
  bad('source maps', (p) => p.startsWith('dist/') && p.endsWith('.map'));
  bad('test helpers (testing/)', (p) => p.startsWith('dist/') && p.split('/').includes('testing'));
  bad('compiled tests', (p) => p.startsWith('dist/') && /\.test\.js$/.test(p));
  bad('TypeScript sources', (p) => p.startsWith('dist/') && /\.ts$/.test(p) && !p.endsWith('.d.ts'));
  const modules = new Set(
    entries
      .filter((p) => p.startsWith('node_modules/'))
      .map((p) => p.split('/').slice(1))
      .map((parts) => (parts[0].startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/'))
      .filter((name) => !name.startsWith('@') || name.includes('/')),
  );
  for (const name of Object.keys(pkg.dependencies)) if (!modules.has(name)) fail(`app.asar lacks the production dependency ${name}`);
  // A devDependency may also be a production dependency's dependency (minipass, under tar): what matters is
  // that every packaged module is in the production tree.
  const production = productionModules();
  const strays = [...modules].filter((name) => !production.has(name));
  if (strays.length) fail(`app.asar holds modules outside the production dependency tree: ${strays.join(', ')}`);
  for (const name of Object.keys(pkg.devDependencies)) {
    if (modules.has(name) && !production.has(name)) fail(`app.asar holds the devDependency ${name}`);
  }
  // Native code: the binding folders that made it into the package (asar or app.asar.unpacked).
  const unpacked = walk(unpackedDir).map((f) => f.path.split(path.sep).join('/'));
  const bindings = new Set(
    [...entries, ...unpacked.map((p) => p)]
      .map((p) => /node_modules\/onnxruntime-node\/bin\/napi-v\d+\/([^/]+)\/([^/]+)\//.exec(p))
      .filter(Boolean)
      .map((m) => `${m[1]}/${m[2]}`),
  );
  const want = `${TARGET.platform}/${TARGET.arch}`;
  if (!bindings.has(want)) fail(`the package has no onnxruntime binding for ${want}`);
  const others = [...bindings].filter((b) => b !== want);
  if (others.length) fail(`the package carries onnxruntime bindings for other machines: ${others.join(', ')}`);
  const nativeInAsar = entries.filter((p) => /\.(node|so(\.\d+)*|dylib|dll)$/.test(p));
  for (const p of nativeInAsar) {
    if (!unpacked.includes(p)) fail(`native file inside app.asar, not unpacked (the OS loader cannot read it): ${p}`);
  }
  return entries.length;
}

async function checkFuses(executable) {
  const { getConfig } = require('app-builder-lib/out/util/config/config.js');
  const { electronFuses } = await getConfig(ROOT, null);
  const current = await getCurrentFuseWire(executable);
  for (const [name, want] of Object.entries(electronFuses)) {
    const option = FuseV1Options[name[0].toUpperCase() + name.slice(1)];
    if (option === undefined) {
      fail(`fuse ${name} is unknown to @electron/fuses`);
      continue;
    }
    const expected = want ? FuseState.ENABLE : FuseState.DISABLE;
    if (current[option] !== expected) fail(`fuse ${name} is ${FuseState[current[option]]}, configured ${want}`);
  }
}

async function startServer(appDir, stateDir, modelDir) {
  const child = spawn(process.execPath, [path.join(appDir, 'dist', 'main', 'index.js'), '--server-only', '--port', '0', '--state-dir', stateDir], {
    cwd: stateDir,
    env: { ...process.env, SATCHEL_STT_MODEL_DIR: modelDir, NODE_PATH: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within ${SERVER_START_TIMEOUT_MS} ms:\n${output}`)), SERVER_START_TIMEOUT_MS);
    const onData = (chunk) => {
      output += chunk;
      const match = /Satchel is running at (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return { child, url: new URL(url), output: () => output };
}

async function checkServer(appDir, modelDir, work) {
  const stateDir = path.join(work, 'state');
  mkdirSync(stateDir);
  const { child, url } = await startServer(appDir, stateDir, modelDir);
  try {
    const token = url.searchParams.get('token');
    const origin = url.origin;
    const get = (p, headers = {}) => fetch(origin + p, { headers, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const health = await get('/health');
    if (health.status !== 200) fail(`/health answered ${health.status}`);
    const link = await get(`/?token=${token}`);
    if (link.status >= 400) fail(`the token link answered ${link.status}`);
    const capability = await get('/api/transcribe/capability', { authorization: `Bearer ${token}` });
    const body = await capability.json().catch(() => ({}));
    if (capability.status !== 200 || body.available !== true || body.provider !== 'local') {
      fail(`the capability probe answered ${capability.status} ${JSON.stringify(body)}, expected local and available`);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function main() {
  const started = Date.now();
  const work = mkdtempSync(path.join(os.tmpdir(), 'satchel-package-check-'));
  try {
    const electronDist = path.join(work, 'electron-dist');
    makeStandInElectron(electronDist);
    const out = path.join(work, 'release');
    build(electronDist, out);
    const appOut = path.join(out, `${TARGET.platform}-unpacked`);
    const resources = path.join(appOut, 'resources');
    const asarPath = path.join(resources, 'app.asar');
    const count = checkAsar(asarPath, path.join(resources, 'app.asar.unpacked'));

    // The packaged app finds the model at <resources>/models/moonshine-tiny (main/model-dir.ts).
    const modelDir = path.join(resources, 'models', 'moonshine-tiny');
    const modelFiles = walk(modelDir).map((f) => f.path).sort();
    if (modelFiles.join() !== 'decoder_model_merged.onnx,encoder_model.onnx') fail(`resources/models/moonshine-tiny holds ${modelFiles.join(', ') || 'nothing'}`);

    const executable = path.join(appOut, pkg.name);
    await checkFuses(executable);

    const files = walk(appOut);
    const total = files.reduce((sum, f) => sum + f.size, 0);
    const asarSize = statSync(asarPath).size;
    if (total > SIZE_BUDGET_BYTES) fail(`the package is ${mib(total)}, over its budget of ${mib(SIZE_BUDGET_BYTES)}`);
    if (asarSize > ASAR_BUDGET_BYTES) fail(`app.asar is ${mib(asarSize)}, over its budget of ${mib(ASAR_BUDGET_BYTES)}`);

    // The app as an installed user runs it: the asar extracted (plain Node cannot read asar archives) next to
    // its unpacked native files, started with the model where the packaged app looks for it.
    const extracted = path.join(work, 'app');
    asar.extractAll(asarPath, extracted);
    await checkServer(extracted, modelDir, work);

    console.log(`package:check: linux-${TARGET.arch} dir build, ${mib(total)} in all (budget ${mib(SIZE_BUDGET_BYTES)}), app.asar ${mib(asarSize)} with ${count} entries (budget ${mib(ASAR_BUDGET_BYTES)})`);
    console.log(`package:check: the ${TOP_ENTRIES} largest files:`);
    for (const f of files.sort((a, b) => b.size - a.size).slice(0, TOP_ENTRIES)) console.log(`  ${mib(f.size).padStart(10)}  ${f.path}`);
    console.log(`package:check: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    if (!process.env.SATCHEL_KEEP_PACKAGE) rmSync(work, { recursive: true, force: true });
    else console.log(`package:check: kept ${work}`);
  }
  if (failures.length) {
    for (const f of failures) console.error(`package:check: FAIL ${f}`);
    process.exit(1);
  }
  console.log('package:check: OK');
}

await main();
