// The shared headless run (both entry points); main/server-only.test.ts covers the ready line and exit codes.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readyLine, runHeadless } from './headless.js';
import { setLogSink } from './log.js';

let lines: string[];
let restoreLog: () => void;
let savedLevel: string | undefined;
beforeEach(() => {
  lines = [];
  restoreLog = setLogSink((line) => lines.push(line));
  savedLevel = process.env.SATCHEL_LOG_LEVEL;
  process.env.SATCHEL_LOG_LEVEL = 'info';
});
afterEach(() => {
  restoreLog();
  if (savedLevel === undefined) delete process.env.SATCHEL_LOG_LEVEL;
  else process.env.SATCHEL_LOG_LEVEL = savedLevel;
});

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
    expect(lines.join('\n')).toContain('SIGINT received, shutting down');
  });

  it('writes the ready line the e2e tests and scripts wait for', () => {
    expect(readyLine('http://127.0.0.1:5/?token=t')).toBe('Satchel is running at http://127.0.0.1:5/?token=t');
  });
});
