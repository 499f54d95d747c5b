// electron-builder.yml is checked the way electron-builder itself checks it: loaded by app-builder-lib's
// getConfig and validated by its validateConfiguration (ajv against app-builder-lib/scheme.json), plus the
// settings this app depends on for security and for finding its native module and model.
import { existsSync, lstatSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { STAMP } from '../scripts/build-if-stale.mjs';
import { trayIconPath } from './tray-menu.js';
import { PACKAGED_MODEL_SUBDIR } from './model-dir.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

type Config = Record<string, any>;
interface ConfigModule {
  getConfig(projectDir: string, configPath: string | null): Promise<Config>;
  validateConfiguration(config: Config, debugLogger: { isEnabled: boolean; add(key: string, value: unknown): void }): Promise<void>;
}
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as ConfigModule;
/** getConfig normalizes `files` into [{ filter: [...] }] entries; the plain patterns, in order. */
function patterns(files: unknown): string[] {
  return (files as Array<string | { filter?: string[] }>).flatMap((entry) =>
    typeof entry === 'string' ? [entry] : (entry.filter ?? []),
  );
}
const debugLogger = { isEnabled: false, add: () => {} };
const validate = (config: Config) => validateConfiguration(structuredClone(config), debugLogger);

let config: Config;
beforeAll(async () => {
  config = await getConfig(ROOT, null);
});

describe('electron-builder.yml against electron-builder’s schema', () => {
  it('is the file electron-builder loads, and it validates', async () => {
    expect(config.appId).toBe('dev.satchel.desktop');
    await expect(validate(config)).resolves.toBeUndefined();
  });
  it('the validator is live: unknown keys and wrong types are rejected', async () => {
    await expect(validate({ ...config, notAnOption: true })).rejects.toThrow(/unknown property 'notAnOption'/);
    // A misspelt fuse would silently leave the real one at Electron's (insecure) default.
    await expect(validate({ ...config, electronFuses: { ...config.electronFuses, runAsNodee: false } })).rejects.toThrow(
      /configuration\.electronFuses should be/,
    );
    await expect(validate({ ...config, mac: { ...config.mac, hardenedRuntime: 'yes' } })).rejects.toThrow(/hardenedRuntime/);
  });
});

describe('the desktop companion: open with, the .desktop entry, macOS usage strings', () => {
  const associations = () => config.fileAssociations as Array<{ ext: string | string[]; mimeType: string; role: string; rank: string }>;
  const exts = () => associations().flatMap((a) => (Array.isArray(a.ext) ? a.ext : [a.ext]));

  it('associates common documents, images, archives and audio, as a Viewer that never takes the default', () => {
    for (const ext of ['pdf', 'docx', 'xlsx', 'pptx', 'txt', 'md', 'csv', 'png', 'jpg', 'jpeg', 'webp', 'zip', 'gz', 'mp3', 'wav', 'm4a']) {
      expect(exts(), ext).toContain(ext);
    }
    expect(new Set(exts()).size, 'each extension once').toBe(exts().length);
    for (const a of associations()) {
      expect(a, String(a.ext)).toMatchObject({ role: 'Viewer', rank: 'Alternate' });
      // Linux builds its MimeType line from these: each a real type/subtype.
      expect(a.mimeType, String(a.ext)).toMatch(/^[a-z]+\/[a-z0-9.+-]+$/);
    }
  });
  it('the Linux .desktop entry passes local files (%F) and lists folders among its types', () => {
    expect(config.linux.executableArgs).toEqual(['%F']);
    expect(config.linux.mimeTypes).toContain('inode/directory');
  });
  it('macOS asks for the microphone and the screen with a sentence saying why', () => {
    expect(config.mac.extendInfo.NSMicrophoneUsageDescription).toMatch(/microphone only while you dictate/);
    expect(config.mac.extendInfo.NSScreenCaptureUsageDescription).toMatch(/only when you take a screenshot/);
  });
});

describe('what the app relies on', () => {
  it('names the product and keeps installers out of the build output', () => {
    expect(config.productName).toBe('Satchel');
    expect(config.directories.output).not.toBe('dist');
    expect(config.directories.buildResources).toBe('build');
  });
  it('packages the compiled app (main entry and CommonJS preload) and package.json', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { main: string };
    expect(pkg.main).toBe('dist/main/index.js');
    expect(patterns(config.files).slice(0, 7)).toEqual([
      'dist/**/*',
      '!dist/**/*.test.js',
      '!dist/.build-stamp',
      '!**/*.map',
      '!**/*.{ts,mts,cts}',
      '!**/testing{,/**}',
      'package.json',
    ]);
    // Past these, only sqlite3's build leftovers and install-time tools are left out (the next test).
    expect(patterns(config.files).slice(7).every((p) => p.startsWith('!node_modules/'))).toBe(true);
  });
  it("unpacks sqlite3's binding and keeps what it loads at run time, without its build leftovers and install tools", () => {
    const { minimatch } = createRequire(require.resolve('app-builder-lib/package.json'))('minimatch') as typeof import('minimatch');
    const unpacked = (file: string) => config.asarUnpack.some((pattern: string) => minimatch(file, pattern, { dot: true }));
    const excluded = (file: string) => patterns(config.files).some((p) => p.startsWith('!') && minimatch(file, p.slice(1), { dot: true }));
    expect(unpacked('node_modules/sqlite3/build/Release/node_sqlite3.node')).toBe(true);
    expect(unpacked('node_modules/sqlite3/lib/sqlite3.js')).toBe(false);
    // What `require('sqlite3')` loads: its lib/, the binding, and `bindings` with its one dependency.
    const runtime = ['node_modules/sqlite3/lib/sqlite3.js', 'node_modules/sqlite3/lib/sqlite3-binding.js', 'node_modules/sqlite3/build/Release/node_sqlite3.node', 'node_modules/sqlite3/package.json'];
    for (const name of ['bindings', 'file-uri-to-path']) runtime.push(`node_modules/${name}/package.json`);
    expect(runtime.filter(excluded)).toEqual([]);
    const manifest = (name: string) => JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
    expect(Object.keys(manifest('bindings').dependencies ?? {})).toEqual(['file-uri-to-path']);
    expect(manifest('file-uri-to-path').dependencies ?? {}).toEqual({});
    for (const file of [
      'node_modules/sqlite3/build/Release/obj.target/sqlite3/gen/sqlite-autoconf-3440200/sqlite3.o',
      'node_modules/sqlite3/deps/sqlite-autoconf-3440200.tar.gz',
      'node_modules/sqlite3/src/database.cc',
      'node_modules/sqlite3/node_modules/node-gyp/package.json',
      'node_modules/prebuild-install/package.json',
      'node_modules/make-fetch-happen/package.json',
    ]) {
      expect(excluded(file), file).toBe(true);
    }
  });
  it('sets the fuses', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: false,
    });
  });
  it('unpacks onnxruntime-node from the asar and ships the speech model as a resource', () => {
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toContain('node_modules/onnxruntime-node/**');
    expect(config.extraResources).toEqual([
      { from: 'models/moonshine-tiny', to: PACKAGED_MODEL_SUBDIR.split(path.sep).join('/'), filter: ['**/*.onnx'] },
      // The tray icon, where main/desktop-shell.ts trayIconPath looks for it when packaged.
      { from: 'build/icon.png', to: path.basename(trayIconPath({ isPackaged: true, resourcesPath: '/r', appPath: '/a' })) },
    ]);
    expect(existsSync(path.join(ROOT, 'build', 'icon.png'))).toBe(true);
  });
  /** Whether electron-builder unpacks `file`, by the minimatch it matches asarUnpack with itself. */
  function unpackedBy(patterns: readonly string[]): (file: string) => boolean {
    const { minimatch } = createRequire(require.resolve('app-builder-lib/package.json'))('minimatch') as typeof import('minimatch');
    return (file: string) => patterns.some((pattern) => minimatch(file, pattern, { dot: true }));
  }

  /**
   * What a worker loads, followed from its entry: its relative imports (static, re-exported or dynamic, types
   * aside) as source files, and the packages it imports with their whole production dependency closure.
   */
  function workerLoads(entry: string): { modules: string[]; imported: string[]; closure: string[] } {
    const modules = new Set<string>();
    const packages = new Set<string>();
    const pending = [entry];
    while (pending.length) {
      const file = pending.pop()!;
      if (modules.has(file)) continue;
      modules.add(file);
      const source = readFileSync(path.join(ROOT, file), 'utf8');
      const specifiers = [
        ...source.matchAll(/^(?:import|export) (?!type )[^;]*? from '([^']+)';/gm),
        ...source.matchAll(/\bimport\('([^']+)'\)/g),
      ].map((m) => m[1]!);
      for (const spec of specifiers) {
        if (spec.startsWith('node:')) continue;
        if (spec.startsWith('.')) pending.push(path.posix.join(path.posix.dirname(file), spec).replace(/\.js$/, '.ts'));
        else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    const queue = [...packages];
    const closure = new Set<string>();
    while (queue.length) {
      const name = queue.pop()!;
      if (closure.has(name)) continue;
      closure.add(name);
      const manifest = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
      queue.push(...Object.keys(manifest.dependencies ?? {}));
    }
    return { modules: [...modules].sort(), imported: [...packages].sort(), closure: [...closure] };
  }

  it('unpacks the Office worker with every module and package it loads, and the bzip2 worker’s decoder', () => {
    // The worker starts from app.asar.unpacked, whose files resolve modules and packages in app.asar.unpacked
    // only: a module or package the Office code loads, or one of its dependencies, left in the asar breaks it.
    const unpacked = unpackedBy(config.asarUnpack);
    const loads = workerLoads('server/office/convert-worker.ts');
    expect(loads.imported).toEqual(['mammoth', 'numfmt', 'yauzl']);
    expect(loads.modules).toContain('server/archive/zip-open.ts');
    for (const file of loads.modules) expect(unpacked(`dist/${file.replace(/\.ts$/, '.js')}`), file).toBe(true);
    expect(loads.closure.filter((name) => !unpacked(`node_modules/${name}/package.json`))).toEqual([]);
    expect(unpacked('node_modules/unbzip2-stream/lib/bzip2.js')).toBe(true);
    expect(unpacked('node_modules/unbzip2-stream/lib/bit_iterator.js')).toBe(true);
    // The rest of the app stays inside the asar.
    expect(unpacked('dist/server/index.js')).toBe(false);
    expect(unpacked('dist/server/archive/index.js')).toBe(false);
    expect(unpacked('node_modules/unbzip2-stream/index.js')).toBe(false);
  });
  it('unpacks the PDF preview worker with every module and package it loads', () => {
    const unpacked = unpackedBy(config.asarUnpack);
    const loads = workerLoads('server/workspace/pdf-worker.ts');
    expect(loads.modules).toEqual(['server/workspace/pdf-text.ts', 'server/workspace/pdf-worker.ts']);
    expect(loads.imported).toEqual(['unpdf']);
    for (const file of loads.modules) expect(unpacked(`dist/${file.replace(/\.ts$/, '.js')}`), file).toBe(true);
    expect(loads.closure.filter((name) => !unpacked(`node_modules/${name}/package.json`))).toEqual([]);
    // The preview code the server's thread runs stays inside the asar.
    expect(unpacked('dist/server/workspace/pdf.js')).toBe(false);
    expect(unpacked('dist/server/workspace/preview.js')).toBe(false);
  });
  it("unpacks the workers' host the desktop starts as a utility process, with every module it loads", () => {
    const unpacked = unpackedBy(config.asarUnpack);
    const loads = workerLoads('server/workspace/off-thread-host.ts');
    expect(loads.modules).toEqual(['server/workspace/off-thread-host.ts', 'server/workspace/off-thread-protocol.ts', 'server/workspace/rss-watchdog.ts']);
    expect(loads.imported).toEqual([]);
    for (const file of loads.modules) expect(unpacked(`dist/${file.replace(/\.ts$/, '.js')}`), file).toBe(true);
    expect(unpacked('dist/server/workspace/off-thread.js')).toBe(false);
  });
  it("unpacks the OCR core and model the OCR worker reads by path, and nothing of the unused builds", () => {
    const unpacked = unpackedBy(config.asarUnpack);
    expect(unpacked('node_modules/tesseract.js-core/tesseract-core-simd-lstm.js')).toBe(true);
    expect(unpacked('node_modules/tesseract.js-core/tesseract-core-simd-lstm.wasm')).toBe(true);
    expect(unpacked('node_modules/@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz')).toBe(true);
    // sharp, which the worker requires by its unpacked path to prepare pages and agents' images, with its whole
    // production dependency closure (a dependency left in the asar: "Cannot find module 'detect-libc'").
    const sharpClosure = new Set<string>();
    const queue = ['sharp'];
    while (queue.length) {
      const name = queue.pop()!;
      if (sharpClosure.has(name)) continue;
      sharpClosure.add(name);
      queue.push(...Object.keys(JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).dependencies ?? {}));
    }
    expect(sharpClosure.size).toBeGreaterThan(1);
    expect([...sharpClosure].filter((name) => !unpacked(`node_modules/${name}/package.json`))).toEqual([]);
    expect(unpacked('node_modules/tesseract.js-core/tesseract-core-simd.wasm')).toBe(false);
    expect(unpacked('node_modules/@tesseract.js-data/eng/4.0.0/eng.traineddata.gz')).toBe(false);
  });
  it('builds dmg+zip (arm64 and x64, hardened, microphone described), nsis, AppImage+deb', () => {
    // Both Mac architectures, each its own installer (README, "Installers").
    expect(config.mac.target).toEqual([
      { target: 'dmg', arch: ['arm64', 'x64'] },
      { target: 'zip', arch: ['arm64', 'x64'] },
    ]);
    expect(config.mac.hardenedRuntime).toBe(true);
    expect(config.mac.extendInfo.NSMicrophoneUsageDescription).toMatch(/microphone/);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    // The deb target refuses to build without a maintainer (package.json has no author e-mail).
    expect(config.linux.maintainer).toMatch(/<[^>]+@[^>]+>/);
  });
});

// What each platform's build would copy, computed with electron-builder's own matchers (app-builder-lib's
// getMainFileMatchers and getNodeModuleFileMatcher, the functions its packager calls) on the real tree. The
// patterns as written cannot show the effect: a platform list of only exclusions silently became `**/*`.
interface Matcher {
  from: string;
  createFilter(): (file: string, stat: Stats & { moduleFullFilePath?: string }) => boolean;
}
interface FileMatcherModule {
  getMainFileMatchers(appDir: string, dest: string, expand: (s: string) => string, platformOptions: Config, packager: unknown, outDir: string, electronCompile: boolean): Matcher[];
  getNodeModuleFileMatcher(appDir: string, dest: string, expand: (s: string) => string, platformOptions: Config, info: unknown): Matcher;
}
const { getMainFileMatchers, getNodeModuleFileMatcher } = require('app-builder-lib/out/fileMatcher.js') as FileMatcherModule;
const PLATFORMS = { mac: 'darwin', win: 'win32', linux: 'linux' } as const;
const ARCHES = ['x64', 'arm64'] as const;
/** Everything the asar may hold besides the production node_modules (added by electron-builder separately). */
const APP_TOP_LEVEL = ['dist', 'package.json'];
/** The build output of main/, preload/, renderer/ and server/: the only entries under dist/ that are packaged. */
const DIST_FOLDERS = ['dist/main', 'dist/preload', 'dist/renderer', 'dist/server'];
const ONNX_BIN = path.join(ROOT, 'node_modules', 'onnxruntime-node', 'bin');

function packagerInfo() {
  return { isPrepackedAppAsar: false, config, projectDir: ROOT, buildResourcesDir: config.directories.buildResources, debugLogger };
}
const expander = (key: string, arch: string) => (pattern: string) => pattern.replace(/\$\{arch\}/g, arch).replace(/\$\{os\}/g, key);

function mainMatchers(key: keyof typeof PLATFORMS, arch: string): Matcher[] {
  const platformOptions = structuredClone(config[key]) as Config;
  return getMainFileMatchers(ROOT, '/out', expander(key, arch), platformOptions, { info: packagerInfo() }, path.join(ROOT, config.directories.output), false);
}

/** Whether a build of `key` would copy the file at `rel` (relative, `/`-separated), whether or not it exists. */
function copies(key: keyof typeof PLATFORMS, rel: string): boolean {
  const fileStat = lstatSync(path.join(ROOT, 'package.json'));
  return mainMatchers(key, 'x64').some((matcher) => matcher.createFilter()(path.join(ROOT, ...rel.split('/')), fileStat));
}

/** Files (relative, `/`-separated) a build of `key` would copy from the app folder, node_modules aside. */
function appFiles(key: keyof typeof PLATFORMS, arch: string): string[] {
  const matchers = mainMatchers(key, arch);
  const files = new Set<string>();
  for (const matcher of matchers) {
    const filter = matcher.createFilter();
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        const stat = lstatSync(full);
        if (name === 'node_modules' || name === '.git' || !filter(full, stat)) continue;
        if (stat.isDirectory()) walk(full);
        else files.add(path.relative(ROOT, full).split(path.sep).join('/'));
      }
    };
    walk(matcher.from);
  }
  return [...files].sort();
}

/** Whether a build of `key` would copy the production dependency file at `rel` (`node_modules/…`). */
function nodeModuleCopies(key: keyof typeof PLATFORMS, rel: string): boolean {
  const matcher = getNodeModuleFileMatcher(ROOT, '/out', expander(key, 'x64'), structuredClone(config[key]) as Config, packagerInfo());
  const stat = Object.assign(lstatSync(path.join(ROOT, 'package.json')), { moduleFullFilePath: rel });
  return matcher.createFilter()(path.join(ROOT, ...rel.split('/')), stat);
}

/** The `<os>/<arch>` onnxruntime binding folders a build of `key` for `arch` would copy. */
function bindings(key: keyof typeof PLATFORMS, arch: string): string[] {
  const matcher = getNodeModuleFileMatcher(ROOT, '/out', expander(key, arch), structuredClone(config[key]) as Config, packagerInfo());
  const filter = matcher.createFilter();
  const kept = new Set<string>();
  for (const napi of readdirSync(ONNX_BIN)) {
    for (const os of readdirSync(path.join(ONNX_BIN, napi))) {
      for (const cpu of readdirSync(path.join(ONNX_BIN, napi, os))) {
        for (const file of readdirSync(path.join(ONNX_BIN, napi, os, cpu))) {
          const full = path.join(ONNX_BIN, napi, os, cpu, file);
          const stat = Object.assign(lstatSync(full), { moduleFullFilePath: path.relative(ROOT, full) });
          if (filter(full, stat)) kept.add(`${os}/${cpu}`);
        }
      }
    }
  }
  return [...kept].sort();
}

describe('what each platform’s build copies (electron-builder’s own matching on this tree)', () => {
  const built = existsSync(path.join(ROOT, 'dist', 'main', 'index.js'));
  if (!built) console.log('builder-config.test: skipping the copied-files check of each platform: no build in dist/ (npm run build)');
  it.skipIf(!built).each(Object.keys(PLATFORMS) as (keyof typeof PLATFORMS)[])('%s: only dist/ and package.json, no maps, tests or test helpers', (key) => {
    const files = appFiles(key, 'x64');
    expect([...new Set(files.map((f) => f.split('/')[0]))].sort()).toEqual(APP_TOP_LEVEL);
    // Nested entries too: dist/ holds only the build of the four source folders, nothing beside them.
    expect([...new Set(files.filter((f) => f.startsWith('dist/')).map((f) => f.split('/').slice(0, 2).join('/')))].sort()).toEqual(DIST_FOLDERS);
    expect(files).toContain('dist/main/index.js');
    expect(files).toContain('dist/renderer/index.html');
    expect(files.filter((f) => f.endsWith('.map') || f.endsWith('.test.js') || /\.[cm]?ts$/.test(f) || f.split('/').includes('testing'))).toEqual([]);
  });
  it.each(Object.keys(PLATFORMS) as (keyof typeof PLATFORMS)[])('%s: leaves out what a start writes into dist/ and what runs only in tests', (key) => {
    // `npm run serve` and `npm start` date their last build with this file (scripts/build-if-stale.mjs).
    expect(STAMP).toBe('dist/.build-stamp');
    expect(copies(key, STAMP)).toBe(false);
    for (const rel of ['dist/server/index.js.map', 'dist/server/testing/harness.js', 'dist/server/testing', 'dist/server/cli.test.js']) expect(copies(key, rel), rel).toBe(false);
    for (const rel of ['dist/server/index.js', 'dist/main/index.js', 'dist/preload/index.cjs', 'package.json']) expect(copies(key, rel), rel).toBe(true);
  });
  it.each(Object.keys(PLATFORMS) as (keyof typeof PLATFORMS)[])('%s: the dependencies go without their source maps, TypeScript and test helpers', (key) => {
    for (const rel of [
      'node_modules/@isaacs/fs-minipass/dist/esm/index.js.map',
      'node_modules/zod/src/v4/core/core.ts',
      'node_modules/zod/v4/core/core.d.cts',
      'node_modules/@hono/node-server/dist/index.d.mts',
      'node_modules/hono/dist/helper/testing/index.js',
    ]) {
      expect(nodeModuleCopies(key, rel), rel).toBe(false);
    }
    for (const rel of ['node_modules/zod/v4/core/core.js', 'node_modules/zod/v4/core/core.cjs', 'node_modules/hono/dist/index.js', 'node_modules/tar/package.json']) {
      expect(nodeModuleCopies(key, rel), rel).toBe(true);
    }
  });
  it('the check is live: a platform list of only exclusions would copy the whole repository', () => {
    const saved = config.linux.files;
    try {
      config.linux.files = (saved as string[]).filter((p) => p.startsWith('!'));
      expect(appFiles('linux', 'x64')).toContain('README.md');
    } finally {
      config.linux.files = saved;
    }
  });
  it('each build keeps its own OS and architecture’s onnxruntime binding and no other', () => {
    const present = new Set(readdirSync(ONNX_BIN).flatMap((napi) => readdirSync(path.join(ONNX_BIN, napi)).flatMap((os) => readdirSync(path.join(ONNX_BIN, napi, os)).map((cpu) => `${os}/${cpu}`))));
    for (const [key, os] of Object.entries(PLATFORMS) as [keyof typeof PLATFORMS, string][]) {
      for (const arch of ARCHES) {
        const own = `${os}/${arch}`;
        // onnxruntime-node 1.30 ships no darwin/x64 binding: an Intel Mac build has no on-device speech.
        expect(bindings(key, arch), `${key} ${arch}`).toEqual(present.has(own) ? [own] : []);
      }
    }
  });
});

describe('build/icon.png', () => {
  it('is a PNG of at least 512×512, the smallest electron-builder turns into a macOS icon', () => {
    const png = readFileSync(path.join(ROOT, config.directories.buildResources, 'icon.png'));
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    expect(width).toBe(height);
    expect(width).toBeGreaterThanOrEqual(512);
  });
});

describe('build/entitlements.mac.plist', () => {
  const file = path.join(ROOT, 'build', 'entitlements.mac.plist');
  it('is the file the mac config points at', () => {
    expect(config.mac.entitlements).toBe('build/entitlements.mac.plist');
    expect(config.mac.entitlementsInherit).toBe('build/entitlements.mac.plist');
    expect(existsSync(file)).toBe(true);
  });
  it('grants JIT and audio input, and nothing else', () => {
    const parsed = new XMLParser({ ignoreAttributes: true, preserveOrder: true }).parse(readFileSync(file, 'utf8')) as any[];
    const plist = parsed.find((node) => 'plist' in node).plist as any[];
    const dict = plist.find((node) => 'dict' in node).dict as any[];
    const entries: Record<string, boolean> = {};
    for (let i = 0; i < dict.length; i += 2) {
      const key = dict[i].key[0]['#text'] as string;
      const value = dict[i + 1];
      entries[key] = 'true' in value;
    }
    expect(entries).toEqual({
      'com.apple.security.cs.allow-jit': true,
      'com.apple.security.device.audio-input': true,
    });
  });
});
