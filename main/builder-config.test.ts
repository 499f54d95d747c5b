// electron-builder.yml is checked the way electron-builder itself checks it: loaded by app-builder-lib's
// getConfig and validated by its validateConfiguration (ajv against app-builder-lib/scheme.json), plus the
// settings this app depends on for security and for finding its native module and model.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
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

describe('what the app relies on', () => {
  it('names the product and keeps installers out of the build output', () => {
    expect(config.productName).toBe('Satchel');
    expect(config.directories.output).not.toBe('dist');
    expect(config.directories.buildResources).toBe('build');
  });
  it('packages the compiled app (main entry and CommonJS preload) and package.json', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { main: string };
    expect(pkg.main).toBe('dist/main/index.js');
    expect(patterns(config.files)).toEqual(['dist/**/*', '!dist/**/*.map', '!dist/**/*.test.js', '!dist/**/testing/**', 'package.json']);
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
    ]);
  });
  it('builds dmg+zip (hardened, microphone described), nsis, AppImage+deb', () => {
    expect(config.mac.target).toEqual(['dmg', 'zip']);
    expect(config.mac.hardenedRuntime).toBe(true);
    expect(config.mac.extendInfo.NSMicrophoneUsageDescription).toMatch(/microphone/);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    // The deb target refuses to build without a maintainer (package.json has no author e-mail).
    expect(config.linux.maintainer).toMatch(/<[^>]+@[^>]+>/);
  });
  it('each platform drops the other platforms’ onnxruntime binaries but keeps its own', () => {
    const own = { mac: 'darwin', win: 'win32', linux: 'linux' } as const;
    for (const [key, platform] of Object.entries(own)) {
      const excluded = patterns(config[key].files).join('\n');
      expect(excluded, key).not.toContain(`/${platform}/`);
      for (const other of Object.values(own).filter((p) => p !== platform)) expect(excluded, key).toContain(`/${other}/**`);
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
