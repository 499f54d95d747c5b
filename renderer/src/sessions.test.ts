import { describe, expect, it } from 'vitest';
import { browseParams } from './api.js';
import { workspaceOptions } from './sessions.js';

describe('workspaceOptions (New session dialog)', () => {
  const home = '/home/ana';
  const def = '/home/ana/.config/satchel/workspace';

  it('preselects the server default, never the home folder listed first', () => {
    const options = workspaceOptions([home, def, '/srv/proj'], def);
    expect(options).toEqual([
      { value: def, label: `${def} (default)`, selected: true },
      { value: home, label: home, selected: false },
      { value: '/srv/proj', label: '/srv/proj', selected: false },
    ]);
  });

  it('offers the default even when it is not among the roots', () => {
    expect(workspaceOptions([home], def).map((o) => [o.value, o.selected])).toEqual([
      [def, true],
      [home, false],
    ]);
  });

  it('keeps an explicit choice (a folder just added), and ignores one that is not offered', () => {
    expect(workspaceOptions([home, def, '/srv/proj'], def, '/srv/proj').find((o) => o.selected)?.value).toBe('/srv/proj');
    expect(workspaceOptions([home, def], def, '/gone').find((o) => o.selected)?.value).toBe(def);
  });

  it('without a default from the server, preselects "Server default" (no path), not the first root', () => {
    const options = workspaceOptions([home, '/srv/proj'], undefined);
    expect(options[0]).toEqual({ value: '', label: 'Server default', selected: true });
    expect(options.filter((o) => o.selected)).toHaveLength(1);
  });
});

describe('browseParams', () => {
  it('adds hidden=1 only when hidden entries are shown', () => {
    expect(new URLSearchParams(browseParams('abc', 'docs', false)).toString()).toBe('session_id=abc&path=docs');
    expect(new URLSearchParams(browseParams('abc', '.config', true)).toString()).toBe('session_id=abc&path=.config&hidden=1');
  });
});
