import { describe, expect, it } from 'vitest';
import type { InboxCounts } from './api.js';
import {
  countsText,
  defaultText,
  desktopBridge,
  folderRow,
  DESKTOP_SHORTCUTS,
  MAX_ACCELERATOR_CHARS,
  openAtLoginReason,
  pausedLine,
  pauseButtonText,
  problemsByField,
  shortcutChange,
  type DesktopSettingsView,
} from './settings-state.js';

const ZERO: InboxCounts = { arrived: 0, duplicate: 0, ignored: 0, symlink: 0, empty: 0, too_large: 0, refused: 0, failed: 0, over_scan_limit: 0, unreadable: 0, bad_name: 0, hard_link: 0 };

describe('Inbox folders', () => {
  it('a folder added in Settings can be removed; one from SATCHEL_INBOX_FOLDERS says where to change it', () => {
    expect(folderRow({ path: '/home/me/Downloads', source: 'settings', status: 'watching' })).toEqual({
      path: '/home/me/Downloads',
      status: 'watching',
      statusText: 'Watching',
      sourceText: 'Added in Settings',
      removable: true,
      error: '',
      skipped: [],
    });
    const env = folderRow({ path: '/srv/scans', source: 'env', status: 'missing' });
    expect(env.removable).toBe(false);
    expect(env.sourceText).toBe('Set by SATCHEL_INBOX_FOLDERS: change it there, it cannot be removed here');
    expect(env.statusText).toBe('Missing: watched again when the folder is back');
  });
  it("a refused folder carries the rule's own words", () => {
    const row = folderRow({ path: '/tmp/shared', source: 'env', status: 'refused', error: 'A folder other users can write to cannot be watched' });
    expect([row.statusText, row.error]).toEqual(['Refused', 'A folder other users can write to cannot be watched']);
    expect(folderRow({ path: '/x', source: 'settings', status: 'paused' }).statusText).toBe('Paused');
  });
  it('counts: the non-zero ones in reading order, or a sentence when nothing happened', () => {
    expect(countsText(ZERO)).toBe('No file has arrived since Satchel started.');
    expect(countsText({ ...ZERO, ignored: 2, arrived: 1234, duplicate: 1, over_scan_limit: 3 })).toBe(
      'Since Satchel started: 1,234 arrived, 1 already there (same bytes), 2 ignored (hidden or temporary), 3 over the per-scan limit.',
    );
  });
  it('files not taken are named with why, and counted (issue 33)', () => {
    const row = folderRow({
      path: '/home/me/Downloads',
      source: 'settings',
      status: 'watching',
      skipped: [
        { name: 'notes.txt', reason: 'it has more than one link' },
        { name: 'report-\uFFFD.txt', reason: 'its name is not valid UTF-8; rename it to bring it in' },
      ],
    });
    expect(row.skipped).toEqual(['Not taken: “notes.txt”: it has more than one link.', 'Not taken: “report-\uFFFD.txt”: its name is not valid UTF-8; rename it to bring it in.']);
    expect(countsText({ ...ZERO, unreadable: 1, bad_name: 2, hard_link: 1 })).toBe(
      'Since Satchel started: 1 not readable (permissions), 2 with a name that is not UTF-8, 1 refused as hard links.',
    );
  });
  it('the pause button and line follow the paused flag', () => {
    expect([pauseButtonText(false), pausedLine(false)]).toEqual(['Pause watching', '']);
    expect([pauseButtonText(true), pausedLine(true)]).toEqual(['Resume watching', 'Paused: nothing is read; what appears meanwhile arrives on resume.']);
  });
});

const VIEW: DesktopSettingsView = {
  settings: { closeToTray: true, openAtLogin: false, shortcuts: { quickCapture: 'Alt+Space', pushToTalk: '' }, pushToTalkTo: 'capture', openWithTo: 'inbox' },
  defaults: { quickCapture: 'CommandOrControl+Shift+Space', pushToTalk: 'CommandOrControl+Shift+D' },
  problems: [],
  openAtLoginSupported: true,
};

describe('Desktop settings', () => {
  it("lists main's shortcuts under main's labels (the problem sentences start with them) and its length limit", async () => {
    const main = await import('../../main/shortcuts.js');
    expect(DESKTOP_SHORTCUTS.map((s) => s.action)).toEqual([...main.SHORTCUT_ACTIONS]);
    expect(DESKTOP_SHORTCUTS.map((s) => s.label)).toEqual(main.SHORTCUT_ACTIONS.map((a) => main.SHORTCUT_LABELS[a]));
    expect(MAX_ACCELERATOR_CHARS).toBe(main.MAX_ACCELERATOR_CHARS);
  });
  it("puts each of main's problem sentences beside its shortcut, and keeps any other one", () => {
    const taken = 'Quick capture: Alt+Space is in use by another application; choose another shortcut in Settings';
    const conflict = "Push-to-talk: Alt+Space is already Quick capture's shortcut";
    const stray = 'Something else went wrong';
    expect(problemsByField([taken, conflict, stray])).toEqual({ shortcuts: { quickCapture: [taken], pushToTalk: [conflict] }, other: [stray] });
    expect(problemsByField([])).toEqual({ shortcuts: { quickCapture: [], pushToTalk: [] }, other: [] });
  });
  it('a shortcut field sends a change only when its text differs from the saved one (trimmed; empty turns it off)', () => {
    expect(shortcutChange(VIEW, 'quickCapture', ' Alt+Space ')).toBeNull();
    expect(shortcutChange(VIEW, 'quickCapture', 'Ctrl+Alt+K')).toEqual({ shortcuts: { quickCapture: 'Ctrl+Alt+K' } });
    expect(shortcutChange(VIEW, 'quickCapture', '')).toEqual({ shortcuts: { quickCapture: '' } });
    expect(shortcutChange(VIEW, 'pushToTalk', '')).toBeNull();
  });
  it('says the default, and why Open at login is unavailable', () => {
    expect(defaultText('CommandOrControl+Shift+D')).toBe('Default: CommandOrControl+Shift+D');
    expect(defaultText('')).toBe('Default: off');
    expect(openAtLoginReason(true)).toBe('');
    expect(openAtLoginReason(false)).toMatch(/^Not available on this system: Satchel can set it on macOS and Windows only\./);
  });
  it('finds the bridge only where the preload put a desktopSettings function, and calls it with its object', async () => {
    expect(desktopBridge({})).toBeUndefined();
    expect(desktopBridge({ satchel: { pickFolder: () => null } })).toBeUndefined();
    expect(desktopBridge({ satchel: { desktopSettings: 'no' } })).toBeUndefined();
    const calls: unknown[][] = [];
    const satchel = {
      desktopSettings(this: unknown, ...args: unknown[]) {
        calls.push([this === satchel, ...args]);
        return Promise.resolve(VIEW);
      },
    };
    const bridge = desktopBridge({ satchel })!;
    await expect(bridge()).resolves.toBe(VIEW);
    await bridge({ closeToTray: false });
    // No argument at all for a read (the preload tells a read from a change by the argument count).
    expect(calls).toEqual([[true], [true, { closeToTray: false }]]);
  });
});
