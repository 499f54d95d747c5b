import { describe, expect, it } from 'vitest';
import { chordKeys, isMacPlatform, LIST_KEYS, listKeyRows, matchShortcut, SHORTCUTS, shortcutRows, type KeyLike, type ShortcutAction } from './shortcuts.js';

const press = (key: string, mods: Partial<Omit<KeyLike, 'key'>> = {}): KeyLike => ({ key, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });
const LINUX = { mac: false, inTextField: false };
const MAC = { mac: true, inTextField: false };
const action = (e: KeyLike, where = LINUX): ShortcutAction | undefined => matchShortcut(e, where)?.action;

describe('the shortcut table', () => {
  it('has one entry per action, each with a label, and no two actions on one chord', () => {
    const actions = SHORTCUTS.map((s) => s.action);
    expect(new Set(actions).size).toBe(actions.length);
    expect(actions.sort()).toEqual(['focus-composer', 'new-session', 'next-session', 'open-settings', 'previous-session', 'regenerate', 'search', 'show-shortcuts', 'stop', 'undo']);
    const chords = SHORTCUTS.map((s) => JSON.stringify(chordKeys(s.chord, false)));
    expect(new Set(chords).size).toBe(chords.length);
    for (const s of SHORTCUTS) expect(s.label.length).toBeGreaterThan(3);
  });

  it('never takes Escape, nor the browser’s reload, window and tab keys', () => {
    for (const s of SHORTCUTS) {
      expect(s.chord.key).not.toBe('Escape');
      if (s.chord.mod) expect(['r', 'n', 't', 'w', 'q', 'l']).not.toContain(s.chord.key.toLowerCase());
    }
    expect(action(press('Escape'))).toBeUndefined();
    expect(action(press('Escape', { shiftKey: true }))).toBeUndefined();
  });
});

describe('matchShortcut', () => {
  it('maps each chord to its action with Ctrl elsewhere and ⌘ on macOS', () => {
    expect(action(press('k', { ctrlKey: true }))).toBe('search');
    expect(action(press('k', { metaKey: true }), MAC)).toBe('search');
    // The other platform's modifier is not the chord.
    expect(action(press('k', { metaKey: true }))).toBeUndefined();
    expect(action(press('k', { ctrlKey: true }), MAC)).toBeUndefined();
    expect(action(press('O', { ctrlKey: true, shiftKey: true }))).toBe('new-session');
    expect(action(press('O', { metaKey: true, shiftKey: true }), MAC)).toBe('new-session');
    expect(action(press('.', { ctrlKey: true }))).toBe('stop');
    expect(action(press('E', { ctrlKey: true, shiftKey: true }))).toBe('regenerate');
    expect(action(press('ArrowUp', { altKey: true }))).toBe('previous-session');
    expect(action(press('ArrowDown', { altKey: true }))).toBe('next-session');
    expect(action(press('/'))).toBe('focus-composer');
    expect(action(press('?', { shiftKey: true }))).toBe('show-shortcuts');
    expect(action(press(',', { ctrlKey: true }))).toBe('open-settings');
    expect(action(press(',', { metaKey: true }), MAC)).toBe('open-settings');
    // In a text field too: Ctrl/⌘+, types nothing.
    expect(action(press(',', { ctrlKey: true }), { mac: false, inTextField: true })).toBe('open-settings');
    expect(action(press(','))).toBeUndefined();
  });

  it('wants the modifiers exactly: an extra or a missing one is another key', () => {
    expect(action(press('k'))).toBeUndefined();
    expect(action(press('k', { ctrlKey: true, shiftKey: true }))).toBeUndefined();
    expect(action(press('k', { ctrlKey: true, altKey: true }))).toBeUndefined();
    expect(action(press('o', { ctrlKey: true }))).toBeUndefined();
    expect(action(press('e', { ctrlKey: true }))).toBeUndefined();
    expect(action(press('ArrowUp'))).toBeUndefined();
    expect(action(press('ArrowUp', { altKey: true, shiftKey: true }))).toBeUndefined();
    expect(action(press('?', { ctrlKey: true, shiftKey: true }))).toBeUndefined();
    expect(action(press('/', { ctrlKey: true }))).toBeUndefined();
  });

  it('leaves text fields their keys: plain keys never, Alt+arrows not on macOS, Ctrl/⌘ chords always', () => {
    const field = { mac: false, inTextField: true };
    const macField = { mac: true, inTextField: true };
    expect(action(press('?', { shiftKey: true }), field)).toBeUndefined();
    expect(action(press('/'), field)).toBeUndefined();
    expect(action(press('ArrowUp', { altKey: true }), field)).toBe('previous-session');
    expect(action(press('ArrowUp', { altKey: true }), macField)).toBeUndefined();
    expect(action(press('k', { ctrlKey: true }), field)).toBe('search');
    expect(action(press('k', { metaKey: true }), macField)).toBe('search');
    expect(action(press('.', { ctrlKey: true }), field)).toBe('stop');
    // Ctrl/⌘+Z in a field is the field's own undo; elsewhere it takes a delete's Undo.
    expect(action(press('z', { ctrlKey: true }), field)).toBeUndefined();
    expect(action(press('z', { ctrlKey: true }))).toBe('undo');
    expect(action(press('z', { metaKey: true }), MAC)).toBe('undo');
  });

  it('ignores a key held down, except moving through the list; and keys typed through an input method', () => {
    expect(action(press('k', { ctrlKey: true, repeat: true }))).toBeUndefined();
    expect(action(press('ArrowDown', { altKey: true, repeat: true }))).toBe('next-session');
    expect(action(press('k', { ctrlKey: true, isComposing: true }))).toBeUndefined();
  });
});

describe('what the dialog shows', () => {
  it('names the keys the platform’s way', () => {
    expect(chordKeys({ key: 'o', mod: true, shift: true }, false)).toEqual(['Ctrl', 'Shift', 'O']);
    expect(chordKeys({ key: 'o', mod: true, shift: true }, true)).toEqual(['⌘', '⇧', 'O']);
    expect(chordKeys({ key: 'ArrowUp', alt: true }, true)).toEqual(['⌥', '↑']);
    expect(chordKeys({ key: '?' }, false)).toEqual(['?']);
  });

  it('lists every shortcut of the table, in its order, with where it does not work', () => {
    const rows = shortcutRows(false);
    expect(rows.map((r) => r.action)).toEqual(SHORTCUTS.map((s) => s.action));
    expect(rows.find((r) => r.action === 'search')).toEqual({ action: 'search', label: 'Search conversations', keys: ['Ctrl', 'K'], note: '' });
    expect(rows.find((r) => r.action === 'show-shortcuts')?.note).toBe('outside text fields');
    expect(rows.find((r) => r.action === 'next-session')?.note).toBe('');
    expect(shortcutRows(true).find((r) => r.action === 'next-session')?.note).toBe('outside text fields');
  });

  it('knows macOS by its platform string', () => {
    expect(isMacPlatform('MacIntel')).toBe(true);
    expect(isMacPlatform('macOS')).toBe(true);
    expect(isMacPlatform('iPad')).toBe(true);
    expect(isMacPlatform('Linux x86_64')).toBe(false);
    expect(isMacPlatform('Win32')).toBe(false);
  });
});

describe('the conversation list’s keys (the `?` dialog’s second table)', () => {
  it('says each row’s alternatives the platform’s way', () => {
    const linux = listKeyRows(false);
    expect(linux.map((r) => r.id)).toEqual(LIST_KEYS.map((k) => k.id));
    expect(new Set(linux.map((r) => r.id)).size).toBe(linux.length);
    const row = (rows: typeof linux, id: string) => rows.find((r) => r.id === id)?.alternatives;
    expect(row(linux, 'list-all')).toEqual([['Ctrl', 'A']]);
    expect(row(linux, 'list-extend')).toEqual([['Shift', '↑'], ['Shift', '↓']]);
    expect(row(linux, 'list-toggle')).toEqual([['Space']]);
    expect(row(linux, 'list-one')).toEqual([['Esc']]);
    const mac = listKeyRows(true);
    expect(row(mac, 'list-all')).toEqual([['⌘', 'A']]);
    expect(row(mac, 'list-delete')).toEqual([['⌦'], ['⌫']]);
    expect(row(mac, 'list-extend')).toEqual([['⇧', '↑'], ['⇧', '↓']]);
  });
});
