import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CommandOutputLimitError,
  CommandTimeoutError,
  resolveExecutable,
  runCommand,
  substituteInput,
  KILL_GRACE_MS,
} from './run-command.js';

const FAKE = fileURLToPath(new URL('./testing/fake-command.mjs', import.meta.url));
const NODE = process.execPath;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean, deadlineMs: number): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-runcmd-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('substituteInput', () => {
  it('replaces every placeholder inside each argument and leaves the rest alone', () => {
    expect(substituteInput(['tool', '{input}', '--file={input}', '{inputs}', 'x'], '/a b/c.wav')).toEqual([
      'tool',
      '/a b/c.wav',
      '--file=/a b/c.wav',
      '{inputs}',
      'x',
    ]);
  });
  it('does not interpret shell syntax', async () => {
    const input = path.join(dir, 'a;touch pwned $(id).wav');
    fs.writeFileSync(input, 'abc');
    const result = await runCommand([NODE, FAKE, 'text', '{input}'], { input, timeoutMs: 10_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('  heard 3 bytes\n\n');
    expect(fs.existsSync(path.join(dir, 'pwned'))).toBe(false);
  });
});

describe('resolveExecutable', () => {
  it('finds a bare name on PATH and rejects non-executables', () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'mytool'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'notexec'), 'data', { mode: 0o644 });
    fs.mkdirSync(path.join(bin, 'adir'));
    const env = { PATH: ['/nonexistent', bin].join(path.delimiter) };
    expect(resolveExecutable('mytool', env)).toBe(path.join(bin, 'mytool'));
    expect(resolveExecutable('notexec', env)).toBeUndefined();
    expect(resolveExecutable('adir', env)).toBeUndefined();
    expect(resolveExecutable('missing-tool-xyz', env)).toBeUndefined();
    expect(resolveExecutable('', env)).toBeUndefined();
  });
  it('accepts an explicit executable path without consulting PATH', () => {
    expect(resolveExecutable(NODE, { PATH: '' })).toBe(NODE);
    expect(resolveExecutable(path.join(dir, 'nope'), { PATH: '' })).toBeUndefined();
  });
});

describe('runCommand', () => {
  it('captures stdout and the exit status', async () => {
    const result = await runCommand([NODE, FAKE, 'echo', 'x', 'hello world'], { timeoutMs: 10_000 });
    expect(result).toEqual({ exitCode: 0, signal: null, stdout: 'hello world', stderr: '' });
  });

  it('resolves with a non-zero exit and its stderr', async () => {
    const result = await runCommand([NODE, FAKE, 'exit', 'x', '7'], { timeoutMs: 10_000 });
    expect(result.exitCode).toBe(7);
    expect(result.stderr).toBe('fake failure on stderr\n');
  });

  it('rejects with the spawn error for a missing program', async () => {
    await expect(runCommand([path.join(dir, 'missing')], { timeoutMs: 10_000 })).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('kills a hanging command and its process group at the time limit (SIGTERM ignored → SIGKILL)', async () => {
    const pidFile = path.join(dir, 'grandchild.pid');
    // Long enough for two Node processes to start on a loaded machine (at load 15 the grandchild was not yet
    // spawned after 500 ms, so there was no pid to check): the limit is what is tested, not how short it can be.
    const limitMs = 5_000;
    const started = Date.now();
    await expect(
      runCommand([NODE, FAKE, 'hang', 'x', pidFile], { timeoutMs: limitMs }),
    ).rejects.toBeInstanceOf(CommandTimeoutError);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(limitMs);
    expect(elapsed).toBeLessThan(limitMs + KILL_GRACE_MS + 10_000);
    const grandchild = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(grandchild).toBeGreaterThan(0);
    expect(await waitUntil(() => !isAlive(grandchild), 3000)).toBe(true);
  });

  it('stops a command that floods its output, keeping memory bounded', async () => {
    const started = Date.now();
    const err = await runCommand([NODE, FAKE, 'flood'], { timeoutMs: 20_000, maxOutputBytes: 256 * 1024 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CommandOutputLimitError);
    expect((err as Error).message).toBe('node wrote more than 262144 bytes to stdout');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('stops the command when the caller aborts', async () => {
    const controller = new AbortController();
    const pidFile = path.join(dir, 'grandchild.pid');
    const run = runCommand([NODE, FAKE, 'hang', 'x', pidFile], { timeoutMs: 60_000, signal: controller.signal });
    expect(await waitUntil(() => fs.existsSync(pidFile) && fs.statSync(pidFile).size > 0, 5000)).toBe(true);
    controller.abort(new Error('client went away'));
    await expect(run).rejects.toThrow('client went away');
    expect(await waitUntil(() => !isAlive(Number(fs.readFileSync(pidFile, 'utf8'))), 3000)).toBe(true);
  });

  it('refuses to start when already aborted', async () => {
    const marker = path.join(dir, 'marker');
    await expect(
      runCommand([NODE, FAKE, 'echo'], {
        timeoutMs: 1000,
        signal: AbortSignal.abort(new Error('gone')),
        env: { ...process.env, FAKE_COMMAND_MARKER: marker },
      }),
    ).rejects.toThrow('gone');
    expect(fs.existsSync(marker)).toBe(false);
  });
});
