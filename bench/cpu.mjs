// The CPU time a process has used, from /proc/<pid>/stat (utime + stime, fields 14 and 15, in clock ticks; ticks
// per second from `getconf CLK_TCK`): what issue 37's benches report per operation beside a floor's, since on a
// shared machine load disturbs CPU time far less than wall time. Linux only.
// `cpuMs(pid)`: the process's CPU ms so far. `cpuMeter(pid)`: `.mark()` then `.since()` gives the ms used between.
// `perOp(pid, n, run)`: run `run()` and resolve { cpuMs, wallMs, cpuPerOpMs, wallPerOpMs } for its `n` operations.
// Self-check: node bench/cpu.mjs (burns CPU in a child and checks the figure against the child's own count).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';

let ticks;
/** Clock ticks per second (almost always 100): asked once. */
export function clockTicks() {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  if (!Number.isInteger(ticks) || ticks <= 0) throw new Error(`getconf CLK_TCK said ${ticks}`);
  return ticks;
}

/** utime + stime of `pid` in ms. The command name (field 2) may hold spaces and parentheses: read after the last ')'. */
export function cpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
}

/** Marks and deltas of one pid's CPU ms. */
export function cpuMeter(pid) {
  let at = cpuMs(pid);
  return {
    mark() {
      at = cpuMs(pid);
    },
    since() {
      return cpuMs(pid) - at;
    },
  };
}

/** CPU and wall ms of `pid` while `run()` does `n` operations, in total and per operation. */
export async function perOp(pid, n, run) {
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  await run();
  const wallMs = performance.now() - t0;
  const cpu = cpuMs(pid) - cpu0;
  return { cpuMs: cpu, wallMs, cpuPerOpMs: cpu / n, wallPerOpMs: wallMs / n };
}

async function selfCheck() {
  // A child spins until its own count says 600 ms of CPU (a loaded machine gives it less per wall second), then reports its own process.cpuUsage(); /proc must agree within a few ticks.
  const child = spawn(process.execPath, ['-e', 'const c=()=>{const u=process.cpuUsage();return u.user+u.system};while(c()<600e3);const u=process.cpuUsage();process.stdout.write(String((u.user+u.system)/1000));setTimeout(()=>{},2000)'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const own = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(d))));
  const seen = cpuMs(child.pid);
  child.kill();
  const tick = 1000 / clockTicks();
  // The child's own figure excludes the startup before its script ran only partly; allow startup + 3 ticks.
  const ok = seen >= own - 3 * tick && seen <= own + 250 + 3 * tick && seen >= 500;
  const idle = cpuMs(process.pid);
  const self = cpuMs(process.pid) - idle;
  console.log(`CLK_TCK ${clockTicks()}; child: /proc ${seen.toFixed(0)} ms vs its own ${own.toFixed(0)} ms; ${ok ? 'ok' : 'MISMATCH'}; two reads in a row differ by ${self} ms`);
  if (!ok) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await selfCheck();
