// The keyboard shortcuts: one table (key → action), read by the key handler (keyboard.ts) and shown by the `?`
// dialog, so what the dialog lists is what the keys do. Pure: no DOM, tested in node (shortcuts.test.ts).
//
// The chords are chosen not to take a key a text field or the browser's page needs: a chord with Ctrl/⌘ works
// everywhere (no text field types it); a plain key (`?`, `/`) only outside text fields; Alt+↑/↓ everywhere but in
// a text field on macOS, where ⌥↑/⌥↓ move the caret by paragraph. Escape is never one: it belongs to dialogs,
// drawers and Edit. Ctrl+R/⇧R (reload) and Ctrl+N/T/W (windows and tabs) are the browser's and Electron's.

import { FOLDER_KEYS } from './folder-keys.js';

export type ShortcutAction =
  | 'new-session'
  | 'search'
  | 'focus-composer'
  | 'undo'
  | 'stop'
  | 'regenerate'
  | 'previous-session'
  | 'next-session'
  | 'show-shortcuts'
  | 'open-settings';

export interface Chord {
  /** KeyboardEvent.key: a letter (either case), a sign, or a named key (ArrowUp). */
  key: string;
  /** Ctrl, or ⌘ on macOS. */
  mod?: boolean;
  shift?: boolean;
  alt?: boolean;
}

export interface Shortcut {
  action: ShortcutAction;
  /** What it does, as the dialog says it. */
  label: string;
  chord: Chord;
  /** Where it works while a text field has focus: always, never, or everywhere but macOS. */
  inTextFields: 'yes' | 'no' | 'not-mac';
  /** Held down, it repeats (moving through the list); the others act once per press. */
  repeats?: boolean;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { action: 'new-session', label: 'New conversation', chord: { key: 'o', mod: true, shift: true }, inTextFields: 'yes' },
  { action: 'search', label: 'Search conversations', chord: { key: 'k', mod: true }, inTextFields: 'yes' },
  { action: 'focus-composer', label: 'Write a message (focus the message box)', chord: { key: '/' }, inTextFields: 'no' },
  { action: 'stop', label: 'Stop the reply', chord: { key: '.', mod: true }, inTextFields: 'yes' },
  { action: 'regenerate', label: 'Regenerate the last reply', chord: { key: 'e', mod: true, shift: true }, inTextFields: 'yes' },
  { action: 'previous-session', label: 'Previous conversation in the list', chord: { key: 'ArrowUp', alt: true }, inTextFields: 'not-mac', repeats: true },
  { action: 'next-session', label: 'Next conversation in the list', chord: { key: 'ArrowDown', alt: true }, inTextFields: 'not-mac', repeats: true },
  { action: 'show-shortcuts', label: 'Show these shortcuts', chord: { key: '?' }, inTextFields: 'no' },
  // Undo of a delete, while its notice shows: the notice sits in the conversation column, far from the list (and
  // behind the list's drawer in a small window), so the keyboard's place need not travel to it. In a text field
  // Ctrl/⌘+Z is the field's own undo.
  { action: 'undo', label: 'Undo a delete (while its notice shows)', chord: { key: 'z', mod: true }, inTextFields: 'no' },
  // Settings (issue 26): Ctrl/⌘+, as in most desktop applications.
  { action: 'open-settings', label: 'Open Settings (Inbox folders, desktop shortcuts)', chord: { key: ',', mod: true }, inTextFields: 'yes' },
];

/** What the matcher reads of a KeyboardEvent. */
export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  repeat?: boolean;
  isComposing?: boolean;
}

export interface KeyContext {
  mac: boolean;
  /** Focus is in a field that takes typing (input, textarea, select, contenteditable). */
  inTextField: boolean;
}

/** macOS (and iPadOS) by the platform string the browser reports: there ⌘ is the modifier, not Ctrl. */
export function isMacPlatform(platform: string): boolean {
  return /mac|iphone|ipad|ipod/i.test(platform);
}

const isLetter = (key: string) => key.length === 1 && key.toLowerCase() !== key.toUpperCase();
/** A sign typed with Shift on some layouts (`?` on US, `.` plain): Shift is part of the key, not of the chord. */
const isSign = (key: string) => key.length === 1 && !isLetter(key);

function matches(chord: Chord, e: KeyLike, mac: boolean): boolean {
  const mod = mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
  const noMod = !e.ctrlKey && !e.metaKey;
  if (chord.mod ? !mod : !noMod) return false;
  if (Boolean(chord.alt) !== e.altKey) return false;
  if (!isSign(chord.key) && Boolean(chord.shift) !== e.shiftKey) return false;
  return isLetter(chord.key) ? e.key.toLowerCase() === chord.key : e.key === chord.key;
}

/** The shortcut this key press is, where it is pressed; undefined for every other key (left to the page). */
export function matchShortcut(e: KeyLike, where: KeyContext, table: readonly Shortcut[] = SHORTCUTS): Shortcut | undefined {
  if (e.isComposing) return undefined;
  return table.find((s) => {
    if (!matches(s.chord, e, where.mac)) return false;
    if (e.repeat && !s.repeats) return false;
    if (!where.inTextField) return true;
    return s.inTextFields === 'yes' || (s.inTextFields === 'not-mac' && !where.mac);
  });
}

const NAMED: Record<string, string> = { ArrowUp: '↑', ArrowDown: '↓', ArrowLeft: '←', ArrowRight: '→', Escape: 'Esc', Enter: 'Enter', ' ': 'Space' };
/** macOS names these two by their symbols: its "delete" key is Backspace (⌫), fn+delete is Delete (⌦). */
const NAMED_MAC: Record<string, string> = { Backspace: '⌫', Delete: '⌦' };

/** The keys to press, as the platform names them: ['Ctrl', 'Shift', 'O'] or ['⌘', '⇧', 'O']. */
export function chordKeys(chord: Chord, mac: boolean): string[] {
  const keys: string[] = [];
  if (chord.mod) keys.push(mac ? '⌘' : 'Ctrl');
  if (chord.alt) keys.push(mac ? '⌥' : 'Alt');
  if (chord.shift) keys.push(mac ? '⇧' : 'Shift');
  keys.push((mac ? NAMED_MAC[chord.key] : undefined) ?? NAMED[chord.key] ?? (isLetter(chord.key) ? chord.key.toUpperCase() : chord.key));
  return keys;
}

/** The table as the dialog lists it: each action's label, its keys, and where it does not work. */
export function shortcutRows(mac: boolean, table: readonly Shortcut[] = SHORTCUTS): { action: ShortcutAction; label: string; keys: string[]; note: string }[] {
  return table.map((s) => ({
    action: s.action,
    label: s.label,
    keys: chordKeys(s.chord, mac),
    note: s.inTextFields === 'no' || (s.inTextFields === 'not-mac' && mac) ? 'outside text fields' : '',
  }));
}

/**
 * The conversation list's own keys (issue 38, item 1: one Tab stop, a roving listbox; sessions.ts onKey acts on
 * them), listed by the `?` dialog under the global shortcuts. They work only with a row of the list focused, so
 * they may be plain letters. Each row's chords are alternatives ("↑ / ↓"). A key the list learns is added here
 * too, so the dialog keeps saying what the list does.
 */
export interface ListKey {
  /** Names the row in the dialog (data-action). */
  id: string;
  label: string;
  chords: readonly Chord[];
}

export const LIST_KEYS: readonly ListKey[] = [
  { id: 'list-move', label: 'Previous or next conversation', chords: [{ key: 'ArrowUp' }, { key: 'ArrowDown' }] },
  { id: 'list-ends', label: 'First or last conversation', chords: [{ key: 'Home' }, { key: 'End' }] },
  { id: 'list-open', label: 'Open the conversation', chords: [{ key: 'Enter' }] },
  { id: 'list-delete', label: 'Delete it (or the selected ones), with Undo', chords: [{ key: 'Delete' }, { key: 'Backspace' }] },
  { id: 'list-pin', label: 'Pin or unpin it (or the selected ones)', chords: [{ key: 'p' }] },
  { id: 'list-archive', label: 'Archive or unarchive it (or the selected ones)', chords: [{ key: 'a' }] },
  { id: 'list-extend', label: 'Select several: extend the selection up or down', chords: [{ key: 'ArrowUp', shift: true }, { key: 'ArrowDown', shift: true }] },
  { id: 'list-toggle', label: 'Select or unselect the focused conversation', chords: [{ key: ' ' }] },
  { id: 'list-all', label: 'Select every conversation in the list', chords: [{ key: 'a', mod: true }] },
  { id: 'list-one', label: 'Back to one selected conversation', chords: [{ key: 'Escape' }] },
  ...FOLDER_KEYS,
];

/** The list's keys as the dialog lists them: each row's label and its alternatives' keys, the platform's way. */
export function listKeyRows(mac: boolean, table: readonly ListKey[] = LIST_KEYS): { id: string; label: string; alternatives: string[][] }[] {
  return table.map((k) => ({ id: k.id, label: k.label, alternatives: k.chords.map((c) => chordKeys(c, mac)) }));
}
