// Shared helpers for the benchmarks: child servers pinned to a core, wrk runs, medians.
import { execFileSync, fork, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The `p`-th percentile of `xs` (nearest rank). */
export const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** The value after `--name` on the command line, or `fallback`. */
export const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
};

/** Every value after a `--name` on the command line, in order (a flag given more than once). */
export const args = (name) => process.argv.flatMap((a, i) => (process.argv[i - 1] === name ? [a] : []));

/** Whether `--name` (a flag without a value) is on the command line. */
export const flag = (name) => process.argv.includes(name);

export function hasCommand(cmd) {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Start `node [nodeArgs] -e script` pinned to `core`; resolves with the child and the first stdout line (a JSON object). */
export function startChild(script, { core = 0, env = {}, nodeArgs = [], startMs = 20_000 } = {}) {
  const args = hasCommand('taskset') ? ['taskset', '-c', String(core), process.execPath] : [process.execPath];
  const child = spawn(args[0], [...args.slice(1), ...nodeArgs, '--input-type=module', '-e', script], {
    env: { ...process.env, SATCHEL_LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`child did not start within ${startMs / 1000} s`)), startMs);
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl !== -1) {
        clearTimeout(timer);
        resolve({ child, info: JSON.parse(buf.slice(0, nl)) });
      }
    });
    child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
  });
}

/**
 * The built Satchel server in a child pinned to core 0, talking to an agent at `agentUrl`: `script` (an ES
 * module's text, written beside `stateDir`) imports `process.env.BENCH_SERVER_MODULE`, starts it on
 * `BENCH_STATE_DIR` and sends its first IPC message once ready. Returns the child, that first message, `ask(m)`
 * (send a message, resolve with the next answer) and `stop()` (a clean exit, then the script file removed).
 */
export async function forkServer(script, { stateDir, serverModule, agentUrl, model = 'fake-model', execArgv = [] }) {
  const file = `${stateDir}.server.mjs`;
  await fs.writeFile(file, script);
  const wrap = hasCommand('taskset') ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
  const child = fork(file, [], {
    execPath: wrap[0],
    execArgv: [...wrap.slice(1), ...execArgv],
    env: {
      ...process.env,
      SATCHEL_LOG_LEVEL: 'error',
      SATCHEL_AGENT_BASE_URL: agentUrl,
      SATCHEL_AGENT_MODEL: model,
      SATCHEL_AGENT_KIND: 'openai',
      BENCH_STATE_DIR: stateDir,
      BENCH_SERVER_MODULE: serverModule,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = [];
  child.on('message', (msg) => waiting.shift()?.(msg));
  const ask = (m) => new Promise((r) => (waiting.push(r), child.send(m)));
  const ready = await new Promise((r, j) => {
    waiting.push(r);
    child.once('exit', (code) => j(new Error(`server exited ${code}`)));
  });
  const stop = async () => {
    // A clean exit lets a --cpu-prof child write its profile.
    const exited = new Promise((r) => child.once('exit', r));
    child.send('exit');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000)).then(() => child.kill('SIGKILL'))]);
    await fs.rm(file, { force: true });
  };
  return { child, ready, ask, stop };
}

/** Peak resident set (VmHWM) of a process, in MiB, from /proc. */
export async function peakRssMiB(pid) {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024;
}

export async function currentRssMiB(pid) {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

/** Run wrk pinned to `core`; returns requests per second. */
export function wrk(url, { seconds = 5, connections = 16, headers = {}, core = 1 } = {}) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  const cmd = hasCommand('taskset') ? ['taskset', ['-c', String(core), 'wrk', ...args]] : ['wrk', args];
  const out = execFileSync(cmd[0], cmd[1], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (non2xx) throw new Error(`wrk saw ${non2xx[1]} error responses from ${url}`);
  return rps;
}

export async function tempDir(prefix) {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

export const machine = () => `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version} (shared, noisy)`;

/** A full tsc pass of the server; on the shared 2-core machine under load it has taken 30 s and more. */
const BUILD_TIMEOUT_MS = 300_000;

/**
 * The server of commit `rev`, compiled into .cache/<prefix>-<commit> (inside the project, so node_modules resolve
 * as for dist/), once: a later run reuses it. Returns the short commit and the build's dist folder.
 */
export function buildRevision(rev, prefix) {
  const commit = execFileSync('git', ['rev-parse', '--short', rev], { encoding: 'utf8' }).trim();
  const root = path.resolve('.cache', `${prefix}-${commit}`);
  const out = path.join(root, 'dist');
  if (!existsSync(path.join(out, 'server', 'index.js'))) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(path.join(root, 'src'), { recursive: true });
    const tar = execFileSync('git', ['archive', commit, 'server', 'main', 'preload', 'tsconfig.json'], { maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', path.join(root, 'src')], { input: tar });
    // Type errors do not stop tsc from emitting; the caller's start fails loudly if the build is unusable.
    spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', path.join(root, 'src', 'tsconfig.json'), '--outDir', out], {
      stdio: 'ignore',
      timeout: BUILD_TIMEOUT_MS,
    });
  }
  return { commit, out };
}
