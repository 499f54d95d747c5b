// `npm start` runs this first: without Electron's binary (npm skips its download with
// ELECTRON_SKIP_BINARY_DOWNLOAD or when the network is unreachable) the desktop app cannot open, and
// electron's own launcher would try a download and end in a stack trace. One sentence instead, exit code 1.
// The package's index.js is never required here: requiring it starts that download.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const EXIT_NO_ELECTRON = 1;
export const NO_ELECTRON_MESSAGE =
  'Satchel’s desktop app cannot start because the Electron binary is not installed (npm skips its download ' +
  'without network or with ELECTRON_SKIP_BINARY_DOWNLOAD); run `npm run serve` to use Satchel in your browser instead.';

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
  const full = override
    ? path.join(override, relative || 'electron')
    : relative && path.join(packageDir, 'dist', relative);
  return full && existsSync(full) ? full : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  if (electronBinary(electronPackageDir(process.cwd())) === undefined) {
    process.stderr.write(`${NO_ELECTRON_MESSAGE}\n`);
    process.exitCode = EXIT_NO_ELECTRON;
  }
}
