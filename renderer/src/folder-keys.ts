// The folder keys of the conversation list (session-folders.ts onRowKey), as the `?` dialog lists them: rows in the
// shape of shortcuts.ts's LIST_KEYS (s15-small), appended to that table at the merge (`...FOLDER_KEYS`), so the
// dialog says what the list does. They work only with a row of the list focused, so they may be plain letters.
import type { Chord } from './shortcuts.js';

export const FOLDER_KEYS: ReadonlyArray<{ id: string; label: string; chords: readonly Chord[] }> = [
  { id: 'list-move-to', label: 'Move it (or the selected ones) to a folder', chords: [{ key: 'm' }, { key: 'F10', shift: true }] },
  { id: 'list-fold', label: 'Fold its folder', chords: [{ key: 'ArrowLeft' }] },
  { id: 'list-folders', label: 'Folders: fold, unfold, rename, delete, new', chords: [{ key: 'f' }] },
  { id: 'list-rename-folder', label: 'Rename its folder', chords: [{ key: 'F2' }] },
];
