import { describe, expect, it } from 'vitest';
import { parseMainArgs } from './args.js';
import { startupPlan } from './startup-plan.js';

describe('startupPlan', () => {
  it('the window takes the single-instance lock and keeps Chromium defaults', () => {
    expect(startupPlan(parseMainArgs(['.']), 'linux')).toEqual({
      mode: 'window',
      singleInstanceLock: true,
      switches: [],
      disableHardwareAcceleration: false,
    });
  });
  it('--server-only on Linux needs no display and does not take the lock', () => {
    expect(startupPlan(parseMainArgs(['.', '--server-only']), 'linux')).toEqual({
      mode: 'server-only',
      singleInstanceLock: false,
      switches: [['ozone-platform', 'headless'], ['disable-gpu']],
      disableHardwareAcceleration: true,
    });
  });
  it('--server-only elsewhere only turns the GPU off (there is no Ozone platform to choose)', () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const plan = startupPlan(parseMainArgs(['--server-only']), platform);
      expect(plan.singleInstanceLock).toBe(false);
      expect(plan.switches).toEqual([['disable-gpu']]);
    }
  });
});
