import { describe, expect, it } from 'vitest';
import { AccessWatch } from './access-lost.js';

describe('AccessWatch', () => {
  it('reports a 401 once, and only after an answer had succeeded (the server restarted under a new token)', () => {
    const watch = new AccessWatch();
    expect(watch.seen(200)).toBe(false);
    expect(watch.seen(404)).toBe(false);
    expect(watch.seen(401)).toBe(true);
    expect(watch.seen(401)).toBe(false);
  });

  it('leaves a page opened without its token link (401 from the start) to the access screen', () => {
    const watch = new AccessWatch();
    expect(watch.seen(401)).toBe(false);
    expect(watch.seen(401)).toBe(false);
  });

  it('does not take a refused path (403) or an unreachable server (0) for a lost access', () => {
    const watch = new AccessWatch();
    watch.seen(204);
    expect(watch.seen(403)).toBe(false);
    expect(watch.seen(0)).toBe(false);
    expect(watch.seen(401)).toBe(true);
  });
});
