import { describe, expect, it } from 'vitest';
import { DEFAULT_SHORTCUTS, parseAccelerator, planShortcuts, registerShortcuts, shortcutProblems, type ShortcutRegistry } from './shortcuts.js';

describe('parseAccelerator', () => {
  it('accepts the defaults and resolves CommandOrControl per platform', () => {
    expect(parseAccelerator(DEFAULT_SHORTCUTS.quickCapture, 'darwin')).toMatchObject({ ok: true, canonical: 'Command+Shift+Space' });
    expect(parseAccelerator(DEFAULT_SHORTCUTS.quickCapture, 'linux')).toMatchObject({ ok: true, canonical: 'Control+Shift+Space' });
    expect(parseAccelerator(DEFAULT_SHORTCUTS.pushToTalk, 'win32')).toMatchObject({ ok: true, canonical: 'Control+Shift+D' });
  });
  it('spellings of one shortcut are one canonical form', () => {
    for (const text of ['ctrl+shift+d', 'Shift+Control+D', 'CmdOrCtrl + Shift + d']) {
      expect(parseAccelerator(text, 'linux')).toMatchObject({ ok: true, canonical: 'Control+Shift+D' });
    }
    expect(parseAccelerator('Option+Return', 'darwin')).toMatchObject({ ok: true, canonical: 'Alt+Enter' });
    expect(parseAccelerator('Super+Esc', 'darwin')).toMatchObject({ ok: true, canonical: 'Command+Escape' });
    expect(parseAccelerator('Meta+num5', 'linux')).toMatchObject({ ok: true, canonical: 'Super+num5' });
    expect(parseAccelerator('Alt+F12', 'linux')).toMatchObject({ ok: true, key: 'F12' });
    expect(parseAccelerator('Control+Plus', 'linux')).toMatchObject({ ok: true, canonical: 'Control+Plus' });
  });
  it('F-keys and media keys may stand alone; a typing key may not', () => {
    expect(parseAccelerator('F9', 'linux')).toMatchObject({ ok: true, canonical: 'F9' });
    expect(parseAccelerator('MediaPlayPause', 'linux')).toMatchObject({ ok: true });
    expect(parseAccelerator('D', 'linux')).toEqual({ ok: false, error: '"D" needs a modifier (Control, Alt, Shift…): alone it would take the key from every application' });
    expect(parseAccelerator('Shift', 'linux')).toEqual({ ok: false, error: '"Shift" has no key, only modifiers' });
  });
  it('refuses what Electron would refuse or misread, each with a sentence', () => {
    expect(parseAccelerator('', 'linux')).toEqual({ ok: false, error: 'The shortcut is empty' });
    expect(parseAccelerator(42, 'linux')).toEqual({ ok: false, error: 'The shortcut is empty' });
    expect(parseAccelerator('Control++', 'linux')).toEqual({ ok: false, error: '"Control++" is not a shortcut: write the + key as Plus (Control+Plus)' });
    expect(parseAccelerator('Control+Hyper+K', 'linux')).toEqual({ ok: false, error: '"Hyper" is not a key Electron knows' });
    expect(parseAccelerator('Control+A+B', 'linux')).toEqual({ ok: false, error: '"Control+A+B" names two keys (A and B); a shortcut has one' });
    expect(parseAccelerator('Ctrl+Control+K', 'linux')).toEqual({ ok: false, error: '"Ctrl+Control+K" names Control twice' });
    expect(parseAccelerator('K+Shift', 'linux')).toEqual({ ok: false, error: '"K+Shift" is not a shortcut: modifiers come before the key' });
    expect(parseAccelerator('Command+K', 'win32')).toEqual({ ok: false, error: '"Command+K" uses Command, which exists only on macOS: write CommandOrControl' });
    expect(parseAccelerator('Control+' + 'K'.repeat(200), 'linux')).toEqual({ ok: false, error: 'The shortcut is too long (max 100 characters)' });
  });
});

describe('planShortcuts', () => {
  it('a second action on the same shortcut is a conflict, spelt differently or not; off stays off', () => {
    expect(planShortcuts({ quickCapture: 'CommandOrControl+Shift+D', pushToTalk: 'Ctrl+Shift+d' }, 'linux')).toEqual([
      { action: 'quickCapture', accelerator: 'CommandOrControl+Shift+D', state: 'active', canonical: 'Control+Shift+D' },
      { action: 'pushToTalk', accelerator: 'Ctrl+Shift+d', state: 'conflict', message: "Push-to-talk: Ctrl+Shift+d is already Quick capture's shortcut" },
    ]);
    expect(planShortcuts({ quickCapture: '', pushToTalk: 'Shift' }, 'linux')).toEqual([
      { action: 'quickCapture', accelerator: '', state: 'off' },
      { action: 'pushToTalk', accelerator: 'Shift', state: 'invalid', message: 'Push-to-talk: "Shift" has no key, only modifiers' },
    ]);
  });
  it('Command+X and CommandOrControl+X are one shortcut on macOS and two on Linux', () => {
    const settings = { quickCapture: 'Command+Shift+X', pushToTalk: 'CommandOrControl+Shift+X' };
    expect(planShortcuts(settings, 'darwin').map((s) => s.state)).toEqual(['active', 'conflict']);
    expect(planShortcuts({ quickCapture: 'Super+Shift+X', pushToTalk: 'CommandOrControl+Shift+X' }, 'linux').map((s) => s.state)).toEqual(['active', 'active']);
  });
});

describe('registerShortcuts', () => {
  function registry(taken: string[] = []) {
    const registered = new Map<string, () => void>();
    const fake: ShortcutRegistry & { registered: typeof registered } = {
      registered,
      register: (accelerator: string, callback: () => void) => {
        if (taken.includes(accelerator)) return false;
        registered.set(accelerator, callback);
        return true;
      },
      unregister: (accelerator: string) => void registered.delete(accelerator),
    } as never;
    return fake;
  }
  const handlers = () => {
    const pressed: string[] = [];
    return { pressed, quickCapture: () => pressed.push('capture'), pushToTalk: () => pressed.push('talk') };
  };

  it('registers the defaults, and a press calls its action', () => {
    const reg = registry();
    const h = handlers();
    const statuses = registerShortcuts(reg, DEFAULT_SHORTCUTS, 'linux', h);
    expect(statuses.map((s) => s.state)).toEqual(['active', 'active']);
    reg.registered.get('CommandOrControl+Shift+D')!();
    expect(h.pressed).toEqual(['talk']);
    expect(shortcutProblems(statuses)).toEqual([]);
  });
  it('a shortcut another application holds is reported, never silently lost', () => {
    const reg = registry(['CommandOrControl+Shift+Space']);
    const statuses = registerShortcuts(reg, DEFAULT_SHORTCUTS, 'linux', handlers());
    expect(statuses[0]).toEqual({
      action: 'quickCapture',
      accelerator: 'CommandOrControl+Shift+Space',
      state: 'taken',
      message: 'Quick capture: CommandOrControl+Shift+Space is in use by another application; choose another shortcut in Settings',
    });
    expect(shortcutProblems(statuses)).toHaveLength(1);
    expect([...reg.registered.keys()]).toEqual(['CommandOrControl+Shift+D']);
  });
  it('changing a shortcut frees the old one; a conflicting or invalid one is never registered', () => {
    const reg = registry();
    const first = registerShortcuts(reg, DEFAULT_SHORTCUTS, 'linux', handlers());
    const second = registerShortcuts(reg, { quickCapture: 'Alt+Shift+C', pushToTalk: 'alt+shift+c' }, 'linux', handlers(), first);
    expect([...reg.registered.keys()]).toEqual(['Alt+Shift+C']);
    expect(second.map((s) => s.state)).toEqual(['active', 'conflict']);
  });
  it('an accelerator Electron throws on is reported as taken, not thrown', () => {
    const reg = { register: () => { throw new Error('conversion failure'); }, unregister: () => {} } as unknown as ShortcutRegistry;
    expect(registerShortcuts(reg, DEFAULT_SHORTCUTS, 'linux', handlers()).map((s) => s.state)).toEqual(['taken', 'taken']);
  });
});
