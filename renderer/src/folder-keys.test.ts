// Each folder key the `?` dialog will list is one the list answers: a row's key event through onRowKey is taken.
import { describe, expect, it, vi } from 'vitest';
import { FOLDER_KEYS } from './folder-keys.js';

vi.mock('./api.js', () => ({ api: {} }));
vi.mock('./dialogs.js', () => ({ promptText: async () => null }));
vi.mock('./toast.js', () => ({ notify: () => undefined }));
vi.mock('./dom.js', () => ({ h: () => ({}), icon: () => ({}), ICONS: {} }));

describe('FOLDER_KEYS', () => {
  it('names the keys session-folders.ts takes on a row, and only those', async () => {
    const { SessionFolders } = await import('./session-folders.js');
    const listeners: string[] = [];
    const list = { addEventListener: (name: string) => listeners.push(name), querySelector: () => null, closest: () => null } as unknown as HTMLElement;
    const row = { session_id: 'aaaaaaaaaaaa', title: 'T', folder: 'ffffffffffff' };
    const folders = new SessionFolders(list, { changed: () => undefined, moved: () => undefined, sessions: () => [row as never], order: () => [row.session_id], focusRow: () => undefined });
    (folders as unknown as { folders: unknown[] }).folders = [{ id: 'ffffffffffff', name: 'Car', created_at: '', count: 1 }];
    // The menus are opened on a page; here only whether a key is taken counts.
    (folders as unknown as { openMenu: () => void }).openMenu = () => undefined;
    const taken = (key: string, shiftKey = false) => {
      let prevented = false;
      const e = { key, shiftKey, ctrlKey: false, metaKey: false, altKey: false, target: {}, preventDefault: () => (prevented = true) } as unknown as KeyboardEvent;
      return folders.onRowKey(e, row.session_id, [row as never]) && prevented;
    };
    for (const k of FOLDER_KEYS) for (const c of k.chords) expect(taken(c.key, c.shift), `${k.id}: ${c.key}`).toBe(true);
    for (const other of ['p', 'a', 'Enter', 'ArrowDown', 'x']) expect(taken(other)).toBe(false);
  });
});
