import { describe, expect, it } from 'vitest';
import { initialState, Store, turnRunning, withChip, type Chip } from './store.js';
import { initialTurn } from './chat-state.js';

describe('Store', () => {
  it('tells every subscriber of each change with the state before it', () => {
    const store = new Store({ a: 1, b: 'x' });
    const seen: string[] = [];
    store.subscribe((s, prev) => seen.push(`${prev.a}->${s.a} ${s.b}`));
    store.update({ a: 2 });
    store.update((s) => ({ a: s.a + 1, b: 'y' }));
    expect(seen).toEqual(['1->2 x', '2->3 y']);
    expect(store.state).toEqual({ a: 3, b: 'y' });
  });

  it('tells an update made by a subscriber after the current round, so every subscriber sees states in order', () => {
    const store = new Store({ n: 0 });
    const first: number[] = [];
    const second: string[] = [];
    store.subscribe((s) => {
      first.push(s.n);
      if (s.n === 1) store.update({ n: 2 });
    });
    store.subscribe((s, prev) => second.push(`${prev.n}->${s.n}`));
    store.update({ n: 1 });
    expect(first).toEqual([1, 2]);
    expect(second).toEqual(['0->1', '1->2']);
  });

  it('stops telling a subscriber that unsubscribed', () => {
    const store = new Store({ n: 0 });
    let calls = 0;
    const off = store.subscribe(() => calls++);
    store.update({ n: 1 });
    off();
    store.update({ n: 2 });
    expect(calls).toBe(1);
  });
});

describe('draft and turn helpers', () => {
  const chip = (id: number): Chip => ({ id, name: `f${id}`, size: 1, origin: { kind: 'picked' }, status: 'queued', loaded: 0 });

  it('withChip changes only the chip named', () => {
    const draft = { owner: 's', text: '', chips: [chip(1), chip(2)] };
    const next = withChip(draft, 2, (c) => ({ ...c, status: 'done' }));
    expect(next.chips.map((c) => c.status)).toEqual(['queued', 'done']);
    expect(next.chips[0]).toBe(draft.chips[0]);
  });

  it('a turn runs only for its own session and only while it streams', () => {
    const state = { ...initialState(), session: { session_id: 's' } as never, turn: initialTurn('t', 's') };
    expect(turnRunning(state)).toBe(true);
    expect(turnRunning(state, 'other')).toBe(false);
    expect(turnRunning({ ...state, turn: { ...state.turn, status: 'done' } })).toBe(false);
  });
});
