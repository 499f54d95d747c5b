import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SHUTDOWN_GRACE_MS } from '../server/index.js';
import { closeWithDeadline, onStopSignal, SERVER_CLOSE_TIMEOUT_MS } from './lifecycle.js';

describe('closeWithDeadline', () => {
  it("by default waits out the server's grace for in-flight uploads, and then some", () => {
    expect(SERVER_CLOSE_TIMEOUT_MS).toBeGreaterThan(SHUTDOWN_GRACE_MS);
  });
  it('is true when close finishes in time', async () => {
    await expect(closeWithDeadline(async () => {}, 1000)).resolves.toBe(true);
  });
  it('is false when close hangs past the deadline', async () => {
    const started = Date.now();
    await expect(closeWithDeadline(() => new Promise<void>(() => {}), 50)).resolves.toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });
  it('is false and reports the error when close fails', async () => {
    const errors: unknown[] = [];
    await expect(closeWithDeadline(() => Promise.reject(new Error('boom')), 1000, (e) => errors.push(e))).resolves.toBe(false);
    expect((errors[0] as Error).message).toBe('boom');
  });
});

describe('onStopSignal', () => {
  it('stops once, on the first of SIGINT/SIGTERM', () => {
    const source = new EventEmitter();
    const seen: string[] = [];
    onStopSignal(source, (signal) => seen.push(signal));
    source.emit('SIGTERM');
    source.emit('SIGINT');
    source.emit('SIGTERM');
    expect(seen).toEqual(['SIGTERM']);
  });
});
