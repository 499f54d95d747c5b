import { describe, expect, it } from 'vitest';
import { UploadQueue } from './upload-queue.js';

/** A job the test finishes by hand, recording when it started. */
function harness(parallel: number) {
  const started: string[] = [];
  const finish = new Map<string, (ok: boolean) => void>();
  const queue = new UploadQueue<string>(parallel, (job) => {
    started.push(job);
    return new Promise<void>((resolve, reject) => finish.set(job, (ok) => (ok ? resolve() : reject(new Error(job)))));
  });
  const settle = async (job: string, ok = true) => {
    finish.get(job)?.(ok);
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { queue, started, settle, tick: () => settle('') };
}

describe('UploadQueue', () => {
  it('starts jobs in order, never more than `parallel` at once, the next one when any settles', async () => {
    const { queue, started, settle, tick } = harness(2);
    for (const j of ['a', 'b', 'c', 'd']) queue.add(j);
    await tick();
    expect(started).toEqual(['a', 'b']);
    expect(queue.running).toBe(2);
    expect(queue.queued).toBe(2);
    await settle('b', false); // a failed upload frees its slot too
    expect(started).toEqual(['a', 'b', 'c']);
    await settle('a');
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    await settle('c');
    await settle('d');
    expect(queue.running).toBe(0);
  });

  it('never starts a job removed (or cleared) while it waited', async () => {
    const { queue, started, settle, tick } = harness(1);
    for (const j of ['a', 'b', 'c', 'd']) queue.add(j);
    await tick();
    expect(queue.remove('b')).toBe(true);
    expect(queue.remove('a')).toBe(false); // already running: the caller aborts it instead
    await settle('a');
    expect(started).toEqual(['a', 'c']);
    queue.clear();
    await settle('c');
    expect(started).toEqual(['a', 'c']);
    expect(queue.queued).toBe(0);
  });
});
