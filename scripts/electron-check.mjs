// `npm start` runs this first. Electron 45 has no install step: its binary is downloaded the first time the
// app starts. This does that download up front, as Electron's own launcher would, and when it cannot happen
// (ELECTRON_SKIP_BINARY_DOWNLOAD is set, or the network is unreachable) says so in one sentence, pointing to
// `npm run serve`, with exit code 1 instead of the launcher's stack trace. The package's index.js is never
// required here: requiring it starts the download with no way to catch its failure.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const EXIT_NO_ELECTRON = 1;
export const SKIP_DOWNLOAD_ENV = 'ELECTRON_SKIP_BINARY_DOWNLOAD';
const INSTEAD = 'run `npm run serve` to use Satchel in your browser instead.';

/** The one sentence for a missing binary; `reason` says why it was not downloaded. */
export function noElectronMessage(reason) {
  return `Satchel’s desktop app cannot start because the Electron binary is not installed (${reason}); ${INSTEAD}`;
}

/** The folder of the `electron` package the project at `projectDir` uses, or undefined when it has none. */
export function electronPackageDir(projectDir) {
  try {
    return path.dirname(createRequire(path.join(projectDir, 'package.json')).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
}

/** The Electron executable as electron's launcher would run it, or undefined when it is not on disk. */
export function electronBinary(packageDir, env = process.env) {
  if (packageDir === undefined) return undefined;
  let relative;
  try {
    relative = readFileSync(path.join(packageDir, 'path.txt'), 'utf8');
  } catch {
    relative = undefined; // written by the binary's download: absent when it never ran
  }
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  const full = override ? path.join(override, relative || 'electron') : relative && path.join(packageDir, 'dist', relative);
  return full && existsSync(full) ? full : undefined;
}

/** Run the package's own download (install.js). Returns undefined on success, else the failure's first line. */
function download(packageDir, env) {
  process.stderr.write('Downloading the Electron binary…\n');
  const result = spawnSync(process.execPath, [path.join(packageDir, 'install.js')], { env, encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] });
  if (result.status === 0) return undefined;
  // Its failure is a stack trace: the message line is the part a person can act on.
  const first = (result.stderr || '').split('\n').find((line) => line.trim() !== '' && !/^\s+at /.test(line));
  return first?.trim().replace(/^\w*Error: /, '') || `exit code ${result.status ?? result.signal}`;
}

/** Ensure the binary; returns the message to print when the desktop app cannot start, else undefined. */
export function ensureElectron(projectDir, env = process.env) {
  const packageDir = electronPackageDir(projectDir);
  if (packageDir === undefined) return noElectronMessage('the electron package is not installed');
  if (electronBinary(packageDir, env)) return undefined;
  if (env[SKIP_DOWNLOAD_ENV]) return noElectronMessage(`${SKIP_DOWNLOAD_ENV} is set`);
  const failure = download(packageDir, env);
  if (failure === undefined && electronBinary(packageDir, env)) return undefined;
  return noElectronMessage(`its download failed: ${failure ?? 'no binary after the download'}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const message = ensureElectron(process.cwd());
  if (message !== undefined) {
    process.stderr.write(`${message}\n`);
    process.exitCode = EXIT_NO_ELECTRON;
  }
}
