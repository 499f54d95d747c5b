import { describe, expect, it } from 'vitest';
import { isSystemDir } from './workspaces.js';

describe('isSystemDir (POSIX)', () => {
  const home = '/home/ana';
  it.each([
    ['/', true],
    ['/etc', true],
    ['/etc/ssh', true],
    ['/usr/bin', true],
    ['/usr/local/share/x', true],
    ['/var', true],
    ['/var/lib/docker', true],
    ['/System/Library', true],
    ['/home', true],
    ['/tmp', true],
    ['/opt', true],
    ['/opt/projects/site', false],
    ['/srv/www/app', false],
    ['/tmp/scratch', false],
    ['/var/tmp/build', false],
    ['/home/ana', false],
    ['/home/ana/code/satchel', false],
    ['/home/bob/code', false],
    ['/etcetera/x', false],
  ])('%s → %s', (dir, expected) => {
    expect(isSystemDir(dir, home, 'linux')).toBe(expected);
  });

  it('never treats the user’s own home as system, even when it is /root', () => {
    expect(isSystemDir('/root', '/root', 'linux')).toBe(false);
    expect(isSystemDir('/root/projects', '/root', 'linux')).toBe(false);
    expect(isSystemDir('/root', '/home/ana', 'linux')).toBe(true);
  });
});
