// The local attacker for tests: server/testing/rename-exchange.py exchanging directories with
// symlinks in a tight loop while the server works in them. Shared by the swap-race and attack tests so they
// wait for, stop and clean up after the swapper the same way.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const SWAPPER = fileURLToPath(new URL('./rename-exchange.py', import.meta.url));
/** Python start-up plus the first exchange of every pair; far longer only when the machine is stuck. */
const READY_DEADLINE_MS = 10_000;

/** Why the swapper cannot run here (printed, so a skipped race says why), or undefined when it can. */
export function swapSkipReason(): string | undefined {
  const python = spawnSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).renameat2'], { encoding: 'utf8' });
  let reason: string | undefined;
  if (python.error) reason = `python3 is not available (${python.error.message})`;
  else if (python.status !== 0) reason = `python3 cannot reach renameat2 (${python.stderr.trim().split('\n').at(-1)})`;
  if (reason) console.log(`skipping the swap race: ${reason}`);
  return reason;
}

export interface Swapper {
  /** Stop swapping (the pairs may be left exchanged); the number of exchanges made. */
  stop(): Promise<number>;
  /** For afterAll: end the swapper at once if a test failed before stopping it. */
  kill(): void;
}

/** Start exchanging each pair [a, b] of `paths`; resolves once every pair was exchanged once. */
export function startSwapper(...paths: string[]): Promise<Swapper> {
  return startHoldingSwapper(0, ...paths);
}

/** As startSwapper, each state held `holdMs` (0: as fast as possible). */
export function startHoldingSwapper(holdMs: number, ...paths: string[]): Promise<Swapper> {
  const child: ChildProcess = spawn('python3', [SWAPPER, ...paths], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SWAP_HOLD_MS: String(holdMs) } });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const swapper: Swapper = {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      const match = /swaps (\d+)/.exec(out);
      if (!match) throw new Error(`no swap count from the swapper: ${out}`);
      return Number(match[1]);
    },
    kill: () => child.kill('SIGKILL'),
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`swapper not ready: ${out}`));
    }, READY_DEADLINE_MS);
    const check = () => {
      if (out.includes('unsupported')) {
        clearTimeout(timer);
        reject(new Error(out.trim()));
        return;
      }
      if (!out.includes('ready')) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve(swapper);
    };
    child.stdout!.on('data', check);
  });
}

/** The swapper may stop mid-exchange: put the folder `dir` back under its name and the link beside it. */
export async function restorePair(dir: string, link: string): Promise<void> {
  if (!(await fs.lstat(dir)).isSymbolicLink()) return;
  await fs.rename(dir, `${dir}-tmp`);
  await fs.rename(link, dir);
  await fs.rename(`${dir}-tmp`, link);
}

/** Run `job` `count` times with at most `concurrency` in flight; `job` gets the run's index. */
export async function pool(count: number, concurrency: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
