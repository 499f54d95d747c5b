// Protected places decided by identity and by case-folded path (protected.ts); the HTTP and MCP behaviour is in
// security/state-folder.attack.test.ts.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROTECTED_REFRESH_MS, ProtectedPlaces, protectedPlaceList } from './protected.js';

let home: string;
let clock: number;
let places: ProtectedPlaces;
const stateDir = () => path.join(home, 'Library', 'Application Support', 'Satchel');

beforeEach(async () => {
  home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-protected-')));
  clock = 0;
  places = new ProtectedPlaces(() => ({ stateDir: stateDir(), home, env: {} }), () => clock, true);
  await fs.mkdir(stateDir(), { recursive: true });
  await places.resolve();
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe('protectedPlaceList', () => {
  it("names every OS's state folder and credential places, from the environment where it says where they are", () => {
    const list = protectedPlaceList({ stateDir: '/s', home: '/h', env: { APPDATA: '/r', LOCALAPPDATA: '/l', XDG_CONFIG_HOME: '/x' } });
    for (const p of ['/s', '/s/attachments', '/h/Library/Application Support/Satchel', '/r/Satchel', '/x/Satchel', '/h/.ssh', '/h/Library/Keychains', '/r/Microsoft/Credentials', '/l/Microsoft/Credentials', '/r/Microsoft/Protect', '/l/Google/Chrome/User Data', '/l/Microsoft/Edge/User Data', '/r/Mozilla/Firefox/Profiles', '/h/.local/share/keyrings', '/x/google-chrome', '/h/.mozilla']) {
      expect(list).toContain(p);
    }
    expect(protectedPlaceList({ stateDir: '/s', home: '/h', env: { SATCHEL_WEBUI_ATTACHMENT_DIR: '/att' } })).toContain('/att');
  });
});

describe('ProtectedPlaces', () => {
  it('compares paths with case where the disk does (Linux), without where it does not (macOS, Windows)', async () => {
    const linux = new ProtectedPlaces(() => ({ stateDir: '/s', home, env: {} }), () => clock, false);
    await linux.resolve();
    expect(linux.isPlace(path.join(home, '.ssh'))).toBe(true);
    expect(linux.isPlace(path.join(home, '.SSH'))).toBe(false);
    expect(places.isPlace(path.join(home, '.SSH'))).toBe(true);
  });

  it('knows a place by its path in any case, and by its identity under another name', async () => {
    expect(places.isPlace(stateDir())).toBe(true);
    expect(places.isPlace(path.join(home, 'library', 'APPLICATION SUPPORT', 'satchel'))).toBe(true);
    expect(places.isPlace(path.join(home, 'Library'))).toBe(false);
    const alias = path.join(home, 'alias');
    await fs.symlink(stateDir(), alias);
    expect(places.isPlace(alias)).toBe(false);
    expect(places.isPlace(alias, await fs.stat(alias))).toBe(true);
  });

  it('refuses a place made after start-up by its name, and learns its identity at the next refresh', async () => {
    const aws = path.join(home, '.aws');
    await fs.mkdir(aws);
    const alias = path.join(home, 'innocent');
    await fs.symlink(aws, alias);
    expect(places.isPlace(aws)).toBe(true);
    expect(places.isPlace(alias, await fs.stat(alias))).toBe(false);
    clock += PROTECTED_REFRESH_MS - 1;
    await places.fresh();
    expect(places.isPlace(alias, await fs.stat(alias))).toBe(false);
    clock += 1;
    await places.fresh();
    expect(places.isPlace(alias, await fs.stat(alias))).toBe(true);
  });

  it('contains(): a place and what is inside it, through links too, but not Satchel\'s own workspace folder', async () => {
    await fs.mkdir(path.join(stateDir(), 'sessions'));
    await fs.mkdir(path.join(stateDir(), 'workspace', 'project'), { recursive: true });
    await fs.symlink(path.join(stateDir(), 'sessions'), path.join(home, 'link'));
    expect(await places.contains(stateDir())).toBe(true);
    expect(await places.contains(path.join(stateDir(), 'sessions'))).toBe(true);
    expect(await places.contains(path.join(home, 'link'))).toBe(true);
    expect(await places.contains(path.join(stateDir(), 'workspace'))).toBe(false);
    expect(await places.contains(path.join(stateDir(), 'workspace', 'project'))).toBe(false);
    expect(await places.contains(home)).toBe(false);
    expect(await places.contains(path.join(home, 'Library', 'Keychains', 'not-made-yet'))).toBe(true);
  });
});
