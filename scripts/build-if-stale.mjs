// `npm run serve` and `npm start` build only when something the build reads changed since the last build
// made here: a full build takes 6-15 s on a small machine, and a second start should take well under one.
// "Changed" is judged by modification times: the newest source file or folder (a folder's time moves when
// a file in it is added, renamed or deleted) against a stamp written when a build succeeded.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Folders whose files the build compiles or copies. */
export const SOURCE_DIRS = ['main', 'preload', 'renderer', 'server'];
/** Single files the build depends on: compiler settings, the copy step, and the installed versions (TypeScript's among them). */
export const SOURCE_FILES = ['tsconfig.json', 'scripts/copy-static.mjs', 'scripts/vendor-assets.mjs', 'package-lock.json'];
/** Tests are not part of the build (tsconfig excludes them), so editing one does not call for a rebuild. */
const NOT_BUILT = /\.test\.ts$/;
/** What a start needs; a build missing any of them is rebuilt whatever the stamp says. */
export const OUTPUTS = ['dist/server/cli.js', 'dist/main/index.js', 'dist/renderer/index.html', 'dist/renderer/app.js', 'dist/renderer/vendor/hljs/languages.json', 'dist/renderer/vendor/katex/katex.mjs'];
export const STAMP = 'dist/.build-stamp';
/** The stamp is dated this much before the build began, so a file saved while the build ran, even on a file
 * system that keeps times to 2 s (FAT), is newer than the stamp and triggers the next build. */
export const STAMP_SLACK_MS = 2000;

/** The newest modification time (ms) among the build's sources under `root`; symlinks are not followed. */
export function newestSourceTime(root) {
  let newest = 0;
  const visit = (p) => {
    let st;
    try {
      st = lstatSync(p);
    } catch {
      return; // an optional source that is absent (e.g. no lock file) has no time
    }
    newest = Math.max(newest, st.mtimeMs);
    if (!st.isDirectory()) return;
    for (const name of readdirSync(p)) {
      if (!NOT_BUILT.test(name)) visit(path.join(p, name));
    }
  };
  for (const rel of [...SOURCE_DIRS, ...SOURCE_FILES]) visit(path.join(root, rel));
  return newest;
}

/** Why a build is needed, or undefined when dist/ is up to date. */
export function staleReason(root) {
  const missing = OUTPUTS.find((rel) => !existsSync(path.join(root, rel)));
  if (missing) return `${missing} is missing`;
  let stampTime;
  try {
    stampTime = lstatSync(path.join(root, STAMP)).mtimeMs;
  } catch {
    return 'no build was recorded';
  }
  return newestSourceTime(root) > stampTime ? 'sources changed since the last build' : undefined;
}

/** Record a successful build that began at `startedMs`. */
export function writeStamp(root, startedMs) {
  const file = path.join(root, STAMP);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ buildStarted: new Date(startedMs).toISOString() })}\n`);
  const dated = (startedMs - STAMP_SLACK_MS) / 1000;
  utimesSync(file, dated, dated);
}

/** `npm run build`, through the npm that runs this script when there is one. Returns its exit code. */
function runBuild(root) {
  const npmCli = process.env.npm_execpath;
  const result = npmCli
    ? spawnSync(process.execPath, [npmCli, 'run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  return result.status ?? 1;
}

/** Build when stale; returns the exit code for the caller (0 when nothing was needed). */
export function buildIfStale(root, report = (line) => process.stderr.write(`${line}\n`)) {
  const reason = staleReason(root);
  if (reason === undefined) return 0;
  report(`Building Satchel (${reason})…`);
  const started = Date.now();
  const code = runBuild(root);
  if (code === 0) writeStamp(root, started);
  return code;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  // npm runs scripts in the package's folder, as the build's own relative paths expect.
  process.exitCode = buildIfStale(process.cwd());
}
