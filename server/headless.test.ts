// The shared headless run of both entry points (`npm run serve` and the desktop app's --server-only): the ready
// line, stop signals, and the exit code.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { READY_PREFIX, readyLine, runHeadless } from './headless.js';
import { captureLogLines } from './testing/log-capture.js';

const logged = captureLogLines('info');

describe('runHeadless', () => {
  it('a stop signal during start closes the server once it is up, then exits 0', async () => {
    const signals = new EventEmitter();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let closed = 0;
    const exited = new Promise<number>((resolve) => {
      void runHeadless({
        start: async () => {
          await gate;
          return { tokenUrl: 'http://127.0.0.1:5/?token=t', close: async () => void closed++ };
        },
        print: () => {},
        signals,
        exit: resolve,
      });
    });
    signals.emit('SIGINT');
    release();
    expect(await exited).toBe(0);
    expect(closed).toBe(1);
    expect(logged().join('\n')).toContain('SIGINT received, shutting down');
  });

  it('a second stop signal during the close neither closes again, nor says so again, nor falls to the default kill', async () => {
    const signals = new EventEmitter();
    let finishClose!: () => void;
    let closes = 0;
    const exited = new Promise<number>((resolve) => {
      void runHeadless({
        start: async () => ({ tokenUrl: 'http://127.0.0.1:5/?token=t', close: () => new Promise<void>((r) => ((finishClose = r), closes++)) }),
        print: () => {},
        signals,
        exit: resolve,
      });
    });
    await waitFor(() => (signals.listenerCount('SIGTERM') > 0 ? true : undefined));
    signals.emit('SIGTERM');
    await waitFor(() => (closes > 0 ? true : undefined));
    // npm's own SIGTERM after the group's, and a Ctrl+C: the process has listeners for both still (no default kill).
    signals.emit('SIGTERM');
    signals.emit('SIGINT');
    expect(signals.listenerCount('SIGTERM')).toBe(1);
    expect(signals.listenerCount('SIGINT')).toBe(1);
    finishClose();
    expect(await exited).toBe(0);
    expect(closes).toBe(1);
    expect(logged().filter((l) => l.includes('received'))).toHaveLength(1);
  });

  it('writes the ready line the e2e tests and scripts wait for', () => {
    expect(readyLine('http://127.0.0.1:5/?token=t')).toBe('Satchel is running at http://127.0.0.1:5/?token=t');
  });
});

function waitFor<T>(read: () => T | undefined, timeoutMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      const value = read();
      if (value !== undefined) resolve(value);
      else if (Date.now() > deadline) reject(new Error('timed out'));
      else setTimeout(poll, 5);
    };
    poll();
  });
}

describe('runHeadless: the ready line and the exit code', () => {
  it('prints the tokened URL once and exits 0 after closing on SIGTERM', async () => {
    const lines: string[] = [];
    const signals = new EventEmitter();
    let closed = 0;
    let exitCode: number | undefined;
    await runHeadless({
      start: async () => ({ tokenUrl: 'http://127.0.0.1:5/?token=abc', close: async () => void closed++ }),
      print: (line) => lines.push(line),
      signals,
      exit: (code) => (exitCode = code),
    });
    expect(lines).toEqual([`${READY_PREFIX}http://127.0.0.1:5/?token=abc`]);
    expect(lines[0]).toBe('Satchel is running at http://127.0.0.1:5/?token=abc');
    expect(exitCode).toBeUndefined();
    signals.emit('SIGTERM');
    signals.emit('SIGINT');
    expect(await waitFor(() => exitCode)).toBe(0);
    expect(closed).toBe(1);
  });
  it('listens for stop signals before it prints the ready line', async () => {
    const signals = new EventEmitter();
    const listenersAtPrint: number[] = [];
    await runHeadless({
      start: async () => ({ tokenUrl: 'u', close: async () => {} }),
      print: () => listenersAtPrint.push(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')),
      signals,
      exit: () => {},
    });
    expect(listenersAtPrint).toEqual([2]);
  });
  it('exits 1 when the server cannot close cleanly', async () => {
    const signals = new EventEmitter();
    let exitCode: number | undefined;
    const errors: unknown[] = [];
    await runHeadless({
      start: async () => ({ tokenUrl: 'u', close: () => Promise.reject(new Error('stuck')) }),
      print: () => {},
      signals,
      exit: (code) => (exitCode = code),
      onError: (err) => errors.push(err),
    });
    signals.emit('SIGINT');
    expect(await waitFor(() => exitCode)).toBe(1);
    expect((errors[0] as Error).message).toBe('stuck');
  });
  it('prints nothing when the server does not start', async () => {
    const lines: string[] = [];
    await expect(
      runHeadless({
        start: () => Promise.reject(new Error('EADDRINUSE')),
        print: (line) => lines.push(line),
        signals: new EventEmitter(),
        exit: () => {},
      }),
    ).rejects.toThrow('EADDRINUSE');
    expect(lines).toEqual([]);
  });
});
