// `npm start`'s first step (electron-check.mjs): a project whose Electron package has no binary gets one
// sentence and exit code 1; one with the binary starts.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { electronBinary, electronPackageDir, NO_ELECTRON_MESSAGE } from './electron-check.mjs';

const run = promisify(execFile);
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'electron-check.mjs');

let root: string;
let pkg: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-electron-'));
  pkg = path.join(root, 'node_modules', 'electron');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), '{"name":"stand-in","private":true}');
  fs.writeFileSync(path.join(pkg, 'package.json'), '{"name":"electron","version":"45.4.1","main":"index.js"}');
  // Requiring the package would start a download: the check must never do it.
  fs.writeFileSync(path.join(pkg, 'index.js'), 'throw new Error("required")');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function installBinary(): string {
  fs.writeFileSync(path.join(pkg, 'path.txt'), 'electron');
  fs.mkdirSync(path.join(pkg, 'dist'));
  fs.writeFileSync(path.join(pkg, 'dist', 'electron'), '');
  return path.join(pkg, 'dist', 'electron');
}

async function check(): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('electron-check.mjs', () => {
  it('without the binary (download skipped): one sentence pointing to npm run serve, exit 1, no stack trace', async () => {
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${NO_ELECTRON_MESSAGE}\n`);
    expect(result.stderr).toContain('npm run serve');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('with path.txt written but the binary gone: the same sentence', async () => {
    fs.writeFileSync(path.join(pkg, 'path.txt'), 'electron');
    expect((await check()).code).toBe(1);
  });

  it('with the binary: silent, exit 0', async () => {
    installBinary();
    expect(await check()).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('without the electron package at all (a production install): the same sentence', async () => {
    fs.rmSync(pkg, { recursive: true });
    expect(electronPackageDir(root)).toBeUndefined();
    expect((await check()).stderr).toBe(`${NO_ELECTRON_MESSAGE}\n`);
  });

  it('finds the binary where the launcher would, ELECTRON_OVERRIDE_DIST_PATH included', () => {
    const binary = installBinary();
    expect(electronBinary(electronPackageDir(root), {})).toBe(binary);
    expect(electronBinary(pkg, { ELECTRON_OVERRIDE_DIST_PATH: path.join(root, 'elsewhere') })).toBeUndefined();
    expect(electronBinary(pkg, { ELECTRON_OVERRIDE_DIST_PATH: path.join(pkg, 'dist') })).toBe(binary);
  });
});
