import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  clampToWorkArea,
  debounced,
  displayKey,
  loadWindowState,
  MAX_REMEMBERED_DISPLAYS,
  parseWindowState,
  rememberWindow,
  restoreWindow,
  saveWindowState,
  type DisplayInfo,
  type WindowState,
} from './window-state.js';

function display(id: number, x: number, y: number, width: number, height: number, menuBar = 0): DisplayInfo {
  return { id, bounds: { x, y, width, height }, workArea: { x, y: y + menuBar, width, height: height - menuBar } };
}
// A laptop at the origin with a 25 px menu bar, an external screen to its right, one above it on the left.
const LAPTOP = display(1, 0, 0, 1440, 900, 25);
const RIGHT = display(2, 1440, 0, 2560, 1440);
const ABOVE_LEFT = display(3, -1920, -1080, 1920, 1080);

describe('clamping into the visible work areas', () => {
  it('a window that fits stays where it was', () => {
    const state = rememberWindow({ displays: {} }, { x: 100, y: 100, width: 1000, height: 700 }, false, [LAPTOP, RIGHT]);
    expect(restoreWindow(state, [LAPTOP, RIGHT], LAPTOP)).toEqual({ bounds: { x: 100, y: 100, width: 1000, height: 700 }, maximized: false });
  });
  it('a window hanging off the right edge or under the menu bar is moved in, not shrunk', () => {
    expect(clampToWorkArea({ x: 1000, y: 0, width: 1000, height: 700 }, LAPTOP.workArea)).toEqual({ x: 440, y: 25, width: 1000, height: 700 });
  });
  it('a window larger than a lowered resolution is shrunk to the work area', () => {
    const big = rememberWindow({ displays: {} }, { x: 1500, y: 50, width: 2400, height: 1300 }, false, [LAPTOP, RIGHT]);
    const smaller = display(2, 1440, 0, 1280, 800);
    // The display changed size: another key; the window is on no remembered display, so centered on the primary.
    expect(restoreWindow(big, [LAPTOP, smaller], LAPTOP).bounds).toEqual({ x: 0, y: 25, width: 1440, height: 875 });
  });
  it('the external display unplugged: centered on the primary at its remembered size', () => {
    const state = rememberWindow({ displays: {} }, { x: 2000, y: 200, width: 1200, height: 800 }, true, [LAPTOP, RIGHT]);
    expect(restoreWindow(state, [LAPTOP], LAPTOP)).toEqual({ bounds: { x: 120, y: 63, width: 1200, height: 800 }, maximized: true });
  });
  it('with negative coordinates (a display above and left of the primary) it is restored there', () => {
    const state = rememberWindow({ displays: {} }, { x: -1800, y: -1000, width: 1600, height: 900 }, false, [LAPTOP, ABOVE_LEFT]);
    expect(state.last).toBe(displayKey(ABOVE_LEFT));
    expect(restoreWindow(state, [LAPTOP, ABOVE_LEFT], LAPTOP).bounds).toEqual({ x: -1800, y: -1000, width: 1600, height: 900 });
  });
  it('per display: back on the laptop it opens where it was on the laptop', () => {
    let state = rememberWindow({ displays: {} }, { x: 50, y: 60, width: 900, height: 600 }, false, [LAPTOP, RIGHT]);
    state = rememberWindow(state, { x: 1600, y: 100, width: 2000, height: 1200 }, true, [LAPTOP, RIGHT]);
    expect(restoreWindow(state, [LAPTOP, RIGHT], LAPTOP)).toEqual({ bounds: { x: 1600, y: 100, width: 2000, height: 1200 }, maximized: true });
    // At home, the external one is absent: the laptop's own place, not the centre.
    expect(restoreWindow(state, [LAPTOP], LAPTOP)).toEqual({ bounds: { x: 50, y: 60, width: 900, height: 600 }, maximized: false });
  });
  it('nothing remembered: the default size centered on the primary', () => {
    expect(restoreWindow({ displays: {} }, [LAPTOP], LAPTOP).bounds).toEqual({ x: 120, y: 53, width: 1200, height: 820 });
  });
  it(`at most ${MAX_REMEMBERED_DISPLAYS} displays are remembered, the least recent dropped`, () => {
    let state: WindowState = { displays: {} };
    for (let i = 0; i < MAX_REMEMBERED_DISPLAYS + 2; i++) {
      const d = display(i, i * 5000, 0, 1920, 1080);
      state = rememberWindow(state, { x: i * 5000 + 10, y: 10, width: 800, height: 600 }, false, [d]);
    }
    expect(Object.keys(state.displays)).toHaveLength(MAX_REMEMBERED_DISPLAYS);
    expect(Object.keys(state.displays)[0]).toBe('10000,0,1920x1080');
  });
});

describe('the state file', () => {
  it('is written and read back; a damaged or foreign one gives defaults', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'satchel-wstate-'));
    try {
      const state = rememberWindow({ displays: {} }, { x: 10.4, y: 20, width: 800, height: 600 }, false, [LAPTOP]);
      await saveWindowState(dir, state);
      expect(JSON.parse(readFileSync(path.join(dir, 'window-state.json'), 'utf8'))).toEqual({
        displays: { '0,0,1440x900': { bounds: { x: 10, y: 20, width: 800, height: 600 }, maximized: false } },
        last: '0,0,1440x900',
      });
      expect(await loadWindowState(dir)).toEqual(JSON.parse(readFileSync(path.join(dir, 'window-state.json'), 'utf8')));
      writeFileSync(path.join(dir, 'window-state.json'), '{not json');
      expect(await loadWindowState(dir)).toEqual({ displays: {} });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('entries without a proper rectangle are dropped, and `last` must name a kept one', () => {
    expect(
      parseWindowState({ displays: { a: { bounds: { x: 0, y: 0, width: -5, height: 10 } }, b: { bounds: { x: 1, y: 2, width: 3, height: 4 }, maximized: 'yes' } }, last: 'a' }),
    ).toEqual({ displays: { b: { bounds: { x: 1, y: 2, width: 3, height: 4 }, maximized: false } } });
  });
});

describe('debounced saving', () => {
  it('saves once the window has rested, and at once on flush', () => {
    vi.useFakeTimers();
    try {
      const save = vi.fn();
      const saver = debounced(save, 500);
      for (let i = 0; i < 20; i++) {
        saver.schedule();
        vi.advanceTimersByTime(100);
      }
      expect(save).not.toHaveBeenCalled();
      vi.advanceTimersByTime(500);
      expect(save).toHaveBeenCalledTimes(1);
      saver.schedule();
      saver.flush();
      expect(save).toHaveBeenCalledTimes(2);
      saver.flush();
      expect(save).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
