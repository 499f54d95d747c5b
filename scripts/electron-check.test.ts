// `npm start`'s first step (electron-check.mjs) against a stand-in electron package whose install.js is
// scripted: a binary present starts silently; a missing one is downloaded, unless downloads are switched off
// or fail, and then one sentence pointing to `npm run serve`, exit code 1, no stack trace.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { electronBinary, electronPackageDir, noElectronMessage } from './electron-check.mjs';

const run = promisify(execFile);
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'electron-check.mjs');

/** install.js stand-ins: Electron's fails with a stack trace when offline, and writes path.txt + dist/ when not. */
const OFFLINE_INSTALL = `require('fs').writeFileSync(__dirname + '/install-ran', '');
console.error('TypeError: fetch failed\\n    at node:internal/deps/undici/undici:13502:13\\n    at async get (x.js:1:1)');
process.exit(1);`;
const ONLINE_INSTALL = `const fs = require('fs');
fs.mkdirSync(__dirname + '/dist', { recursive: true });
fs.writeFileSync(__dirname + '/dist/electron', '');
fs.writeFileSync(__dirname + '/path.txt', 'electron');`;

let root: string;
let pkg: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-electron-'));
  pkg = path.join(root, 'node_modules', 'electron');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), '{"name":"stand-in","private":true}');
  fs.writeFileSync(path.join(pkg, 'package.json'), '{"name":"electron","version":"45.4.1","main":"index.js"}');
  // Requiring the package would start a download nobody can catch: the check must never do it.
  fs.writeFileSync(path.join(pkg, 'index.js'), 'throw new Error("required")');
  fs.writeFileSync(path.join(pkg, 'install.js'), OFFLINE_INSTALL);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function installBinary(): string {
  fs.writeFileSync(path.join(pkg, 'path.txt'), 'electron');
  fs.mkdirSync(path.join(pkg, 'dist'));
  fs.writeFileSync(path.join(pkg, 'dist', 'electron'), '');
  return path.join(pkg, 'dist', 'electron');
}

async function check(env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const options = { cwd: root, env: { PATH: process.env.PATH, ...env } };
  try {
    const { stdout, stderr } = await run(process.execPath, [script], options);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The last line written: the one sentence a person reads. */
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

describe('electron-check.mjs', () => {
  it('with ELECTRON_SKIP_BINARY_DOWNLOAD and no binary: one sentence pointing to npm run serve, exit 1, no download', async () => {
    const result = await check({ ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    expect(result).toEqual({ code: 1, stdout: '', stderr: `${noElectronMessage('ELECTRON_SKIP_BINARY_DOWNLOAD is set')}\n` });
    expect(result.stderr).toContain('run `npm run serve` to use Satchel in your browser instead.');
    expect(fs.existsSync(path.join(pkg, 'install-ran'))).toBe(false);
  });

  it('offline: the download is tried, and its failure is one sentence with the reason, exit 1, no stack trace', async () => {
    const result = await check();
    expect(fs.existsSync(path.join(pkg, 'install-ran'))).toBe(true);
    expect(result.code).toBe(1);
    expect(lastLine(result.stderr)).toBe(noElectronMessage('its download failed: fetch failed'));
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('online: the binary is downloaded and the start goes on (exit 0)', async () => {
    fs.writeFileSync(path.join(pkg, 'install.js'), ONLINE_INSTALL);
    const result = await check();
    expect(result.code).toBe(0);
    expect(electronBinary(pkg, {})).toBe(path.join(pkg, 'dist', 'electron'));
  });

  it('with the binary: silent, exit 0, nothing downloaded', async () => {
    installBinary();
    expect(await check()).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(fs.existsSync(path.join(pkg, 'install-ran'))).toBe(false);
  });

  it('without the electron package at all (a production install): the same kind of sentence', async () => {
    fs.rmSync(pkg, { recursive: true });
    expect(electronPackageDir(root)).toBeUndefined();
    expect((await check()).stderr).toBe(`${noElectronMessage('the electron package is not installed')}\n`);
  });

  it('finds the binary where the launcher would, ELECTRON_OVERRIDE_DIST_PATH included', () => {
    const binary = installBinary();
    expect(electronBinary(electronPackageDir(root), {})).toBe(binary);
    expect(electronBinary(pkg, { ELECTRON_OVERRIDE_DIST_PATH: path.join(root, 'elsewhere') })).toBeUndefined();
    expect(electronBinary(pkg, { ELECTRON_OVERRIDE_DIST_PATH: path.join(pkg, 'dist') })).toBe(binary);
  });
});
