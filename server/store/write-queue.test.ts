// The write queue (write-queue.ts): one write of a session at a time, later changes grouped into the next batch,
// a change that throws refused alone and leaving nothing behind, stored rows frozen, a removal's cancel.
import { describe, expect, it } from 'vitest';
import type { Message } from './messages.js';
import type { Session } from './session-shapes.js';
import { applyChanges, sealRows, WriteQueue, type PendingChange } from './write-queue.js';

function session(messages: Message[] = []): Session {
  return { session_id: 'a'.repeat(12), title: 't', workspace: '/w', profile: 'default', created_at: '', updated_at: '', messages, attachments: [] };
}

const msg = (content: string): Message => ({ role: 'user', content, timestamp: 0 }) as Message;

function pending(change: (s: Session) => void): PendingChange & { outcome: () => 'resolved' | 'rejected' | 'waiting'; error?: unknown } {
  let outcome: 'resolved' | 'rejected' | 'waiting' = 'waiting';
  const item = {
    change,
    touch: true,
    resolve: () => {
      outcome = 'resolved';
    },
    reject: (err: unknown) => {
      outcome = 'rejected';
      item.error = err;
    },
    outcome: () => outcome,
    error: undefined as unknown,
  };
  return item;
}

describe('applyChanges', () => {
  it('refuses a change that throws halfway alone, and nothing of it reaches the draft', () => {
    const base = sealRows(session([msg('one')]));
    const ok1 = pending((s) => {
      s.title = 'renamed';
    });
    const bad = pending((s) => {
      s.messages.push(msg('half'));
      throw new Error('refused');
    });
    const ok2 = pending((s) => {
      s.messages.push(msg('two'));
    });
    const { draft, carried } = applyChanges(base, [ok1, bad, ok2]);
    expect(carried).toEqual([ok1, ok2]);
    expect(bad.outcome()).toBe('rejected');
    expect((bad.error as Error).message).toBe('refused');
    expect(draft.title).toBe('renamed');
    expect(draft.messages.map((m) => m.content)).toEqual(['one', 'two']);
    // The base is untouched, and its rows are shared, not copied.
    expect(base.messages.map((m) => m.content)).toEqual(['one']);
    expect(draft.messages[0]).toBe(base.messages[0]);
  });

  it('rejects a change that assigns into a stored (frozen) row', () => {
    const base = sealRows(session([msg('one')]));
    const item = pending((s) => {
      s.messages[0]!.content = 'changed in place';
    });
    expect(applyChanges(base, [item]).carried).toEqual([]);
    expect(item.outcome()).toBe('rejected');
    expect(base.messages[0]!.content).toBe('one');
  });
});

describe('sealRows', () => {
  it('stores a copy of a new row, frozen deep, and keeps a stored row as it is', () => {
    const stored = sealRows(session([msg('old')])).messages[0]!;
    const mine = { role: 'user', content: 'new', timestamp: 0, attachments: [{ path: 'x' }] } as unknown as Message;
    const sealed = sealRows(session([stored, mine]));
    expect(sealed.messages[0]).toBe(stored);
    expect(sealed.messages[1]).not.toBe(mine);
    expect(Object.isFrozen(sealed.messages[1]) && Object.isFrozen((sealed.messages[1] as { attachments: object[] }).attachments[0])).toBe(true);
    // The maker's own object is still its own to change.
    mine.content = 'changed after';
    expect(sealed.messages[1]!.content).toBe('new');
  });
});

describe('WriteQueue', () => {
  it('writes one batch at a time and groups what arrives meanwhile into the next', async () => {
    const batches: number[] = [];
    let release!: () => void;
    const firstHeld = new Promise<void>((r) => (release = r));
    const queue = new WriteQueue(async (_id, batch) => {
      batches.push(batch.length);
      if (batches.length === 1) await firstHeld;
      for (const item of batch) item.resolve(session());
    });
    const first = queue.add('s', { change: () => {}, touch: true });
    expect(queue.busy('s')).toBe(true);
    const later = [1, 2, 3].map(() => queue.add('s', { change: () => {}, touch: true }));
    release();
    await Promise.all([first, ...later]);
    expect(batches).toEqual([1, 3]);
    await queue.settled();
    expect(queue.busy('s')).toBe(false);
  });

  it('cancel rejects the changes waiting and waits for the write under way', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let written = 0;
    const queue = new WriteQueue(async (_id, batch) => {
      await held;
      written += batch.length;
      for (const item of batch) item.resolve(session());
    });
    const running = queue.add('s', { change: () => {}, touch: true });
    const waiting = queue.add('s', { change: () => {}, touch: true });
    let cancelled = false;
    const cancel = queue.cancel('s', () => new Error('gone')).then(() => (cancelled = true));
    await expect(waiting).rejects.toThrow('gone');
    await Promise.resolve();
    expect(cancelled).toBe(false);
    release();
    await cancel;
    await running;
    expect(written).toBe(1);
  });
});
