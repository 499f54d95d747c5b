import { afterEach, describe, expect, it, vi } from 'vitest';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SessionListing } from '../store/db/session-rows.js';
import { forgetSecrets, rememberOwnSecret } from '../redact/known.js';

// Counts the summaries made (each one redacts a title), and makes each take a little time, so the warm-up has to
// run in several slices on any machine.
const made = vi.hoisted(() => ({ count: 0 }));
vi.mock('./sessions.js', async (original) => {
  const actual = await original<typeof import('./sessions.js')>();
  return {
    ...actual,
    publicSessionSummary: (s: Parameters<typeof actual.publicSessionSummary>[0]) => {
      made.count++;
      const until = performance.now() + 0.02;
      while (performance.now() < until);
      return actual.publicSessionSummary(s);
    },
  };
});

const { SessionListCache, WARM_SLICE_MS } = await import('./session-list.js');

function listings(n: number, title = (i: number) => `Plan for week ${i}`): SessionListing[] {
  return Array.from({ length: n }, (_, i) => ({
    session_id: `s${String(i).padStart(6, '0')}`,
    title: title(i),
    workspace: '',
    profile: 'default',
    created_at: '2026-11-01T00:00:00Z',
    updated_at: '2026-11-01T00:00:00Z',
    message_count: i,
    attachment_count: 0,
  }));
}

afterEach(() => {
  made.count = 0;
  forgetSecrets();
});

describe('SessionListCache.warm: the list made ahead of the first GET /api/sessions', () => {
  it('makes every summary in slices that let other callbacks in, and the first body then makes none', async () => {
    const all = listings(3_000);
    const cold = new SessionListCache().body('default', 1, () => all).json;
    made.count = 0;

    const cache = new SessionListCache();
    let between = 0;
    const ticker = (async () => {
      while (made.count < all.length) {
        between++;
        await nextTurn();
      }
    })();
    const count = await cache.warm(() => all, new AbortController().signal);
    await ticker;
    expect(count).toBe(3_000);
    // 3,000 summaries of at least 0.02 ms each are at least 60 ms of work: many slices of WARM_SLICE_MS.
    expect(between).toBeGreaterThan(60 / WARM_SLICE_MS / 2);

    made.count = 0;
    const warm = cache.body('default', 1, () => all).json;
    expect(made.count).toBe(0);
    expect(warm).toBe(cold);
  });

  it('a secret learnt while it runs is masked in the body (what was made before it is made again)', async () => {
    const secret = 'zq7Xw2Lm9Pv4Rt8Ks1';
    const all = listings(2_000, (i) => `Deploy note ${i} ${secret}`);
    const cache = new SessionListCache();
    const warming = cache.warm(() => all, new AbortController().signal);
    await nextTurn();
    expect(made.count).toBeGreaterThan(0);
    expect(made.count).toBeLessThan(all.length);
    rememberOwnSecret(secret);
    await warming;
    const json = cache.body('default', 1, () => all).json;
    expect(json).not.toContain(secret);
    expect(JSON.parse(json).sessions[1999].title).toMatch(/^Deploy note 1999 \S+$/);
  });

  it('stops when the server stops', async () => {
    const all = listings(3_000);
    const stopping = new AbortController();
    const warming = new SessionListCache().warm(() => all, stopping.signal);
    await nextTurn();
    stopping.abort();
    const count = await warming;
    expect(count).toBeLessThan(all.length);
    expect(made.count).toBe(count);
  });
});
