// The keyboard shortcuts in the page: one keydown listener reads the table (shortcuts.ts) and calls the App's
// action for the chord. While a modal dialog is open nothing is taken (its keys, Escape first, are its own);
// a key another handler already used (defaultPrevented) is left alone; a plain key typed in a text field stays
// that field's (shortcuts.ts decides which chords work there). The `?` dialog lists the same table.
import { byId, clear, h } from './dom.js';
import { isMacPlatform, listKeyRows, matchShortcut, shortcutRows, type ShortcutAction } from './shortcuts.js';

export type ShortcutActions = Record<ShortcutAction, () => void>;

/** macOS by what the browser says it runs on (userAgentData where there is one). */
export function onMac(): boolean {
  const data = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData;
  return isMacPlatform(data?.platform || navigator.platform || '');
}

const TYPING_INPUTS = new Set(['text', 'search', 'url', 'email', 'password', 'number', 'tel', 'date', 'datetime-local', 'month', 'time', 'week']);

/** A field that takes typed keys: text inputs, textareas, selects (arrows change them), editable content. */
export function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && TYPING_INPUTS.has(target.type);
}

export function installShortcuts(actions: ShortcutActions): void {
  const mac = onMac();
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || document.querySelector('dialog[open]')) return;
    const shortcut = matchShortcut(e, { mac, inTextField: isTextField(e.target) });
    if (!shortcut) return;
    e.preventDefault();
    actions[shortcut.action]();
  });
}

/** One chord's keys as <kbd>s joined by "+". */
const keysView = (keys: readonly string[]) => keys.map((k, i) => [i ? '+' : null, h('kbd', {}, k)]).flat();

/** The `?` dialog: every shortcut of the table with its keys, the platform's way; then the conversation list's. */
export class ShortcutsDialog {
  private readonly dialog = byId<HTMLDialogElement>('shortcuts-dialog');
  private readonly list = byId('shortcuts-list');
  private readonly listKeys = byId('list-keys-list');

  constructor() {
    clear(this.list);
    const mac = onMac();
    for (const row of shortcutRows(mac)) {
      this.list.appendChild(
        h(
          'tr',
          { 'data-testid': 'shortcut-row', 'data-action': row.action },
          h('td', { class: 'shortcut-label' }, row.label, row.note ? h('span', { class: 'muted small' }, ` (${row.note})`) : null),
          h('td', { class: 'shortcut-keys' }, keysView(row.keys)),
        ),
      );
    }
    clear(this.listKeys);
    for (const row of listKeyRows(mac)) {
      this.listKeys.appendChild(
        h(
          'tr',
          { 'data-testid': 'list-key-row', 'data-action': row.id },
          h('td', { class: 'shortcut-label' }, row.label),
          h('td', { class: 'shortcut-keys' }, row.alternatives.map((keys, i) => [i ? ' / ' : null, ...keysView(keys)]).flat()),
        ),
      );
    }
  }

  open(): void {
    if (!this.dialog.open) this.dialog.showModal();
  }
}
