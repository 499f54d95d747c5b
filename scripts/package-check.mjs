#!/usr/bin/env node
// npm run package:check — packages the app for Linux the way `npm run dist` would, offline, and checks what an
// installed user gets. No Electron binary can be downloaded here, so electron-builder packages against a
// stand-in Electron distribution: a tiny executable carrying the fuse wire (so the fuse step really runs and
// can be read back), the `version` file and Electron's LICENSE (the files electron-builder copies or moves).
// Then: the asar holds only what runs, native bindings only for linux-x64, the model under resources/, the
// fuses as configured, the package within its size budget, and the asar, extracted, starts the server under
// plain Node with only the packaged production dependencies.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'package.json'));
const asar = require('@electron/asar');
const yazl = require('yazl');
const { getCurrentFuseWire, FuseV1Options } = require('@electron/fuses');
const { SENTINEL, FuseState } = require('@electron/fuses/dist/constants.js');

/** The whole package (unpacked dir, model included) may not grow past this without someone noticing: 94 MiB
 *  before sharp, whose libvips adds about 19 MiB (set at 115 MiB with it, 120 MiB budget). */
const SIZE_BUDGET_BYTES = 120 * 1024 * 1024;
/** app.asar alone: the compiled app and the production JavaScript dependencies that run, without their source
 *  maps, TypeScript or test helpers (11.1 MiB when set; 14.3 MiB at 15,000,000 bytes after issue 35; raised for
 *  issues 36 and 37's own code — the conversation's documents and Satchel's in-turn tools, the streamed export,
 *  the kept session bodies — which took it to 14.6 MiB with no new dependency). */
const ASAR_BUDGET_BYTES = 15_800_000;
/** The only top-level entries the asar may hold. */
const ASAR_TOP_LEVEL = ['dist', 'node_modules', 'package.json'];
/** The only folders under dist/ (the build output of main/, preload/, renderer/, server/). */
const DIST_FOLDERS = ['main', 'preload', 'renderer', 'server'];
const TARGET = { platform: 'linux', arch: 'x64' };
const SERVER_START_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
const TOP_ENTRIES = 10;
/** A Moonshine-tiny transcription of a few seconds of speech takes about a second here; room for a loaded CI. */
const TRANSCRIBE_TIMEOUT_MS = 30_000;
const TOOL_TIMEOUT_MS = 30_000;
/** A photo larger than what agents get (AGENT_IMAGE_MAX_EDGE 1568), and the size its note must say it is shown at. */
const PHOTO_SIZE = '3000x2000';
const PHOTO_SHOWN = 'shown at 1568×1045';
/** What the espeak-ng voice says, and the words of it the transcript must hold: most, not all, as Moonshine
 *  tiny mishears a robotic voice now and then ("fox" here). */
const SPOKEN = 'The quick brown fox jumps over the lazy dog.';
const HEARD_WORDS = ['quick', 'brown', 'fox', 'jump', 'lazy', 'dog'];
const MIN_HEARD_WORDS = 4;
/** Files only the worker threads load: the asar copy is removed, so only a worker started from
 *  app.asar.unpacked finds them (in Electron, the asar is not there to fall back on for an ES-module worker). */
const WORKER_ONLY_FILES = [
  'dist/server/office/convert-worker.js',
  'node_modules/unbzip2-stream/lib/bzip2.js',
  'node_modules/unbzip2-stream/lib/bit_iterator.js',
  // The PDF preview worker and pdf.js (the server's thread never loads unpdf in the built app).
  'dist/server/workspace/pdf-worker.js',
  'node_modules/unpdf/dist/index.mjs',
  'node_modules/unpdf/dist/pdfjs.mjs',
  // Tesseract's core and the English model, which the OCR worker reads by path (server/ocr/engine.ts).
  'node_modules/tesseract.js-core/tesseract-core-simd-lstm.js',
  'node_modules/tesseract.js-core/tesseract-core-simd-lstm.wasm',
  'node_modules/@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz',
];
/** Words the packaged OCR must read back from an image of them. */
const OCR_WORDS = 'Packaged recognition reads invoices';
/** Electron's own defaults for the 8 v1 fuses ('1' enabled, '0' disabled), as a fresh binary carries them. */
const STOCK_FUSE_WIRE = '10110001';

/** Where the afterPack hook writes the computed .desktop entry (beside the unpacked app). */
const DESKTOP_ENTRY_FILE = 'satchel-computed.desktop';
/** Types the .desktop entry must list: a document, an image, an archive, audio, and folders. */
const DESKTOP_MIME_TYPES = ['application/pdf', 'image/png', 'application/zip', 'audio/mpeg', 'inode/directory'];

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

/**
 * A `--linux dir` build writes no .desktop entry (only AppImage and deb do). This afterPack hook asks the same
 * electron-builder code those targets use (LinuxTargetHelper.computeDesktopEntry) for the entry this
 * configuration gives, and writes it beside the unpacked app for checkDesktopEntry.
 */
function writeDesktopEntryHook(dir) {
  const hook = path.join(dir, 'desktop-entry-hook.cjs');
  const helper = require.resolve('app-builder-lib/out/targets/LinuxTargetHelper.js');
  writeFileSync(
    hook,
    `const { writeFileSync } = require('node:fs');
const path = require('node:path');
const { LinuxTargetHelper } = require(${JSON.stringify(helper)});
exports.default = async (context) => {
  const entry = await new LinuxTargetHelper(context.packager).computeDesktopEntry(context.packager.platformSpecificBuildOptions);
  writeFileSync(path.join(context.appOutDir, '..', ${JSON.stringify(DESKTOP_ENTRY_FILE)}), entry);
};
`,
  );
  return hook;
}

/** The .desktop entry as an installed deb or AppImage would carry it: Exec ends in %F, MimeType lists the associations. */
function checkDesktopEntry(file) {
  if (!existsSync(file)) return fail('no .desktop entry was computed');
  const entry = Object.fromEntries(
    readFileSync(file, 'utf8').split('\n').filter((line) => line.includes('=')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  if (!/ %F$/.test(entry.Exec ?? '')) fail(`the .desktop entry's Exec does not end in %F: ${entry.Exec}`);
  const types = (entry.MimeType ?? '').split(';').filter(Boolean);
  for (const type of DESKTOP_MIME_TYPES) if (!types.includes(type)) fail(`the .desktop entry's MimeType lacks ${type}`);
  console.log(`package:check: .desktop entry: Exec=${entry.Exec}, ${types.length} MIME types`);
}

function build(electronDist, outDir, afterPack) {
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
      `-c.afterPack=${afterPack}`,
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
  // Ours and the dependencies' alike (electron-builder.yml's `files` exclusions apply to node_modules too).
  bad('source maps', (p) => p.endsWith('.map'));
  bad('test helpers (testing/)', (p) => p.split('/').includes('testing'));
  bad('compiled tests', (p) => p.startsWith('dist/') && /\.test\.js$/.test(p));
  bad('TypeScript sources or declarations', (p) => /\.[cm]?ts$/.test(p));
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
  // sharp's per-platform packages: `@img/sharp-<os>-<arch>` (the addon) and `@img/sharp-libvips-<os>-<arch>`.
  const sharpBindings = new Set(
    [...entries, ...unpacked]
      .map((p) => /node_modules\/@img\/sharp-(?:libvips-)?([a-z0-9]+)-([a-z0-9]+)\//.exec(p))
      .filter(Boolean)
      .map((m) => `${m[1]}/${m[2]}`),
  );
  if (!sharpBindings.has(want)) fail(`the package has no sharp binding for ${want}`);
  const otherSharp = [...sharpBindings].filter((b) => b !== want);
  if (otherSharp.length) fail(`the package carries sharp bindings for other machines: ${otherSharp.join(', ')}`);
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

async function startServer(appDir, stateDir, modelDir, workspace) {
  const child = spawn(process.execPath, [path.join(appDir, 'dist', 'main', 'index.js'), '--server-only', '--port', '0', '--state-dir', stateDir], {
    cwd: stateDir,
    env: { ...process.env, SATCHEL_STT_MODEL_DIR: modelDir, SATCHEL_WEBUI_DEFAULT_WORKSPACE: workspace, NODE_PATH: '' },
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

/** A one-paragraph .docx: the three parts a Word document needs. */
function makeDocx(text) {
  const zip = new yazl.ZipFile();
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  zip.addBuffer(
    Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    '[Content_Types].xml',
  );
  zip.addBuffer(
    Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    '_rels/.rels',
  );
  zip.addBuffer(Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`), 'word/document.xml');
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks = [];
    zip.outputStream.on('data', (c) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** A one-page PDF showing `text`, with its cross-reference table (offsets counted, as a writer would). */
function makePdf(text) {
  const content = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let pdf = '%PDF-1.7\n';
  const offsets = objects.map((body, i) => {
    const at = pdf.length;
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

function runTool(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: TOOL_TIMEOUT_MS });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.error?.message ?? result.stderr}`);
}

/**
 * The installed layout: resources/app.asar (here a folder, as plain Node cannot read the archive) next to
 * resources/app.asar.unpacked. The files only workers load are taken out of the asar copy.
 */
function install(asarPath, unpackedDir, work) {
  const resources = path.join(work, 'installed', 'resources');
  const appDir = path.join(resources, 'app.asar');
  asar.extractAll(asarPath, appDir);
  cpSync(unpackedDir, path.join(resources, 'app.asar.unpacked'), { recursive: true });
  for (const file of WORKER_ONLY_FILES) {
    if (!existsSync(path.join(resources, 'app.asar.unpacked', file))) fail(`${file} is not unpacked from app.asar`);
    rmSync(path.join(appDir, file), { force: true });
  }
  return { appDir, unpacked: path.join(resources, 'app.asar.unpacked') };
}

/** The idle release's native half (server/core/malloc-trim.ts, native/satchel-malloc-trim) loads in the installed layout. */
async function checkMallocTrim(appDir) {
  const { loadMallocTrim } = await import(pathToFileURL(path.join(appDir, 'dist', 'server', 'core', 'malloc-trim.js')).href);
  if (typeof loadMallocTrim() !== 'function') fail('the packaged server cannot load its malloc_trim addon (satchel-malloc-trim)');
}

/** The Office worker, started from the unpacked copy alone, converts a document (its imports all unpacked). */
async function checkOfficeWorker(unpacked, docx) {
  const bytes = new Uint8Array(docx);
  const worker = new Worker(pathToFileURL(path.join(unpacked, 'dist', 'server', 'office', 'convert-worker.js')), {
    workerData: { bytes, format: 'docx' },
    stdout: true,
    stderr: true,
  });
  const reply = await new Promise((resolve) => {
    worker.once('message', resolve);
    worker.once('error', (err) => resolve({ ok: false, message: err.message }));
  });
  await worker.terminate();
  if (!reply.ok) fail(`the Office worker from app.asar.unpacked failed: ${reply.message}`);
}

/** The PDF preview worker, started from the unpacked copy alone, reads a document's text (pdf.js unpacked). */
async function checkPdfWorker(unpacked, pdf) {
  const worker = new Worker(pathToFileURL(path.join(unpacked, 'dist', 'server', 'workspace', 'pdf-worker.js')), { stdout: true, stderr: true });
  const reply = await new Promise((resolve) => {
    worker.once('message', resolve);
    worker.once('error', (err) => resolve({ summary: { note: err.message } }));
    worker.postMessage({ bytes: new Uint8Array(pdf) });
  });
  await worker.terminate();
  if (!String(reply.summary?.text ?? '').includes('Packaged PDF')) fail(`the PDF worker from app.asar.unpacked answered ${JSON.stringify(reply)}`);
}

/** The installed app's OCR engine, loaded from the extracted asar, reads an image of text with its core and model
 *  from app.asar.unpacked (their asar copies are removed by install()). */
async function checkOcr(appDir) {
  const sharp = require('sharp');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="120"><rect width="100%" height="100%" fill="#fff"/><text x="40" y="70" font-family="DejaVu Sans" font-size="32">${OCR_WORDS}</text></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const { createOcrEngine } = await import(pathToFileURL(path.join(appDir, 'dist', 'server', 'ocr', 'engine.js')).href);
  const engine = createOcrEngine();
  try {
    const result = await engine.recognizeImage(png);
    if (result.text !== OCR_WORDS) fail(`the packaged OCR read ${JSON.stringify(result.text)}`);
  } catch (err) {
    fail(`the packaged OCR failed: ${err.message}`);
  } finally {
    await engine.close();
  }
}

/** A 3000×2000 JPEG made by ffmpeg, attached and read back with the SDK's client: it arrives downscaled. */
async function checkMcpImage(origin, token, sessionId, post, work) {
  const photo = path.join(work, 'photo.jpg');
  runTool('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${PHOTO_SIZE}`, '-frames:v', '1', photo], work);
  const form = new FormData();
  form.append('session_id', sessionId);
  form.append('file', new Blob([readFileSync(photo)]), 'photo.jpg');
  const res = await post('/api/upload', form);
  if (res.status !== 200) return fail(`the photo upload answered ${res.status}`);
  const { Client } = await import(pathToFileURL(require.resolve('@modelcontextprotocol/sdk/client/index.js')).href);
  const { StreamableHTTPClientTransport } = await import(pathToFileURL(require.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js')).href);
  const client = new Client({ name: 'package-check', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const result = await client.callTool({ name: 'read_attachment', arguments: { session_id: sessionId, name: 'photo.jpg' } });
    const [image, note] = result.content ?? [];
    if (image?.type !== 'image' || !String(note?.text ?? '').includes(PHOTO_SHOWN)) fail(`read_attachment of a photo answered ${JSON.stringify(result).slice(0, 300)}`);
  } catch (err) {
    fail(`the MCP image read failed: ${err.message}`);
  } finally {
    await client.close().catch(() => {});
  }
}

async function checkServer(appDir, modelDir, work, docx) {
  const stateDir = path.join(work, 'state');
  const workspace = path.join(work, 'workspace');
  mkdirSync(stateDir);
  mkdirSync(workspace);
  const { child, url } = await startServer(appDir, stateDir, modelDir, workspace);
  try {
    const token = url.searchParams.get('token');
    const origin = url.origin;
    const auth = { authorization: `Bearer ${token}` };
    const get = (p, headers = {}) => fetch(origin + p, { headers, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const post = (p, body, timeout = REQUEST_TIMEOUT_MS) =>
      fetch(origin + p, {
        method: 'POST',
        headers: body instanceof FormData ? auth : { ...auth, 'content-type': 'application/json' },
        body: body instanceof FormData ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(timeout),
      });
    const health = await get('/health');
    if (health.status !== 200) fail(`/health answered ${health.status}`);
    const link = await get(`/?token=${token}`);
    if (link.status >= 400) fail(`the token link answered ${link.status}`);
    const capability = await get('/api/transcribe/capability', auth);
    const body = await capability.json().catch(() => ({}));
    if (capability.status !== 200 || body.available !== true || body.provider !== 'local') {
      fail(`the capability probe answered ${capability.status} ${JSON.stringify(body)}, expected local and available`);
    }

    const session = await (await post('/api/session/new', {})).json();
    const upload = async (name, bytes) => {
      const form = new FormData();
      form.append('session_id', session.session?.session_id ?? '');
      form.append('file', new Blob([bytes]), name);
      const res = await post('/api/workspace/upload', form);
      return { status: res.status, body: await res.json().catch(() => ({})) };
    };
    // An Office upload gets its Markdown sidecar, converted by the worker started from app.asar.unpacked.
    const office = await upload('packaged.docx', docx);
    const sidecar = path.join(workspace, 'packaged.docx.md');
    const markdown = existsSync(sidecar) ? readFileSync(sidecar, 'utf8') : '';
    if (office.status !== 200 || !office.body.sidecar || !markdown.includes('Packaged sidecar')) {
      fail(`the .docx upload answered ${office.status} ${JSON.stringify(office.body)}; sidecar: ${JSON.stringify(markdown)}`);
    }
    // A PDF in the workspace previews by its text, read by the worker started from app.asar.unpacked.
    writeFileSync(path.join(workspace, 'packaged.pdf'), makePdf('Packaged PDF'));
    const pdfPreview = await get(`/api/workspace/preview?${new URLSearchParams({ session_id: session.session?.session_id ?? '', path: 'packaged.pdf' })}`, auth);
    const pdfBody = await pdfPreview.json().catch(() => ({}));
    if (pdfPreview.status !== 200 || pdfBody.kind !== 'pdf' || pdfBody.pages !== 1 || !String(pdfBody.text ?? '').includes('Packaged PDF')) {
      fail(`the PDF preview answered ${pdfPreview.status} ${JSON.stringify(pdfBody)}`);
    }
    // A .tar.bz2 extracts through the bzip2 worker (which requires its decoder from app.asar.unpacked).
    const archiveDir = path.join(work, 'archive');
    mkdirSync(path.join(archiveDir, 'notes'), { recursive: true });
    writeFileSync(path.join(archiveDir, 'notes', 'hello.txt'), 'hello from a tar.bz2\n');
    runTool('tar', ['-cjf', 'notes.tar.bz2', 'notes'], archiveDir);
    const bz2 = await upload('notes.tar.bz2', readFileSync(path.join(archiveDir, 'notes.tar.bz2')));
    const dest = bz2.body.dest ?? bz2.body.path;
    const extracted = dest ? path.join(dest, 'notes', 'hello.txt') : '';
    if (bz2.status !== 200 || !extracted || !existsSync(extracted) || readFileSync(extracted, 'utf8') !== 'hello from a tar.bz2\n') {
      fail(`the .tar.bz2 upload answered ${bz2.status} ${JSON.stringify(bz2.body)}`);
    }
    // An agent reads a large photo through /mcp: sharp, loaded from app.asar.unpacked, downscales it.
    await checkMcpImage(origin, token, session.session?.session_id ?? '', post, work);
    // A spoken sentence is transcribed on-device with the packaged model.
    const wav = path.join(work, 'speech.wav');
    runTool('espeak-ng', ['-v', 'en-us', '-w', wav, SPOKEN], work);
    const form = new FormData();
    form.append('file', new Blob([readFileSync(wav)], { type: 'audio/wav' }), 'speech.wav');
    const speech = await post('/api/transcribe', form, TRANSCRIBE_TIMEOUT_MS);
    const heard = await speech.json().catch(() => ({}));
    const transcript = String(heard.transcript ?? '').toLowerCase();
    const missing = HEARD_WORDS.filter((w) => !transcript.includes(w));
    if (speech.status !== 200 || HEARD_WORDS.length - missing.length < MIN_HEARD_WORDS) fail(`POST /api/transcribe answered ${speech.status} ${JSON.stringify(heard)}; missing ${missing.join(', ')}`);
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
    build(electronDist, out, writeDesktopEntryHook(work));
    checkDesktopEntry(path.join(out, DESKTOP_ENTRY_FILE));
    const appOut = path.join(out, `${TARGET.platform}-unpacked`);
    const resources = path.join(appOut, 'resources');
    const asarPath = path.join(resources, 'app.asar');
    const count = checkAsar(asarPath, path.join(resources, 'app.asar.unpacked'));

    // The packaged app finds the model at <resources>/models/moonshine-tiny (main/model-dir.ts).
    const modelDir = path.join(resources, 'models', 'moonshine-tiny');
    const modelFiles = walk(modelDir).map((f) => f.path).sort();
    if (modelFiles.join() !== 'decoder_model_merged.onnx,encoder_model.onnx') fail(`resources/models/moonshine-tiny holds ${modelFiles.join(', ') || 'nothing'}`);
    // The tray icon, where main/tray-menu.ts trayIconPath looks when packaged: a PNG, not empty.
    const trayIcon = path.join(resources, 'tray-icon.png');
    if (!existsSync(trayIcon) || !readFileSync(trayIcon).subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
      fail('resources/tray-icon.png is missing or not a PNG');
    }

    const executable = path.join(appOut, pkg.name);
    await checkFuses(executable);

    const files = walk(appOut);
    const total = files.reduce((sum, f) => sum + f.size, 0);
    const asarSize = statSync(asarPath).size;
    if (total > SIZE_BUDGET_BYTES) fail(`the package is ${mib(total)}, over its budget of ${mib(SIZE_BUDGET_BYTES)}`);
    if (asarSize > ASAR_BUDGET_BYTES) fail(`app.asar is ${mib(asarSize)}, over its budget of ${mib(ASAR_BUDGET_BYTES)}`);

    // The app as an installed user runs it: the asar extracted (plain Node cannot read asar archives) next to
    // its unpacked files, started with the model where the packaged app looks for it; its workers start from
    // app.asar.unpacked.
    const { appDir, unpacked } = install(asarPath, path.join(resources, 'app.asar.unpacked'), work);
    const docx = await makeDocx('Packaged sidecar');
    await checkOfficeWorker(unpacked, docx);
    await checkPdfWorker(unpacked, makePdf('Packaged PDF'));
    await checkOcr(appDir);
    await checkMallocTrim(appDir);
    await checkServer(appDir, modelDir, work, docx);

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
