import { describe, expect, it } from 'vitest';
import { skippedSummary } from './skipped-view.js';

describe('skipped members line', () => {
  it('counts by kind, singular and plural, in order of appearance', () => {
    expect(
      skippedSummary([
        { name: 'latest', reason: 'symlink' },
        { name: 'empty/', reason: 'directory-only' },
        { name: 'bin/sh', reason: 'symlink' },
      ]),
    ).toBe('2 links, 1 empty folder skipped');
  });

  it('says nothing when nothing was skipped', () => {
    expect(skippedSummary([])).toBe('');
  });
});
