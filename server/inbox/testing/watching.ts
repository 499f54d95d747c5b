// A watched folder and the watcher's shared state (watching.ts) for the unit tests of its parts (detector, settler):
// a real temporary folder held as the watcher holds it, with no watcher, timers or database around it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { InboxCounts } from '../../core/wire.js';
import { closeWatch, holdFolder, newFolder, type Folder } from '../folder.js';
import type { InboxRecord } from '../record.js';
import type { Signature } from '../rules.js';
import { defaultInboxOptions, zeroCounts, type InboxOptions, type Watching } from '../watching.js';

export interface WatchedForTest {
  /** A private temporary folder; the watched folder is `watched` in it, the rest is outside the watch. */
  root: string;
  dir: string;
  folder: Folder;
  w: Watching & { counts: InboxCounts };
  known: Map<string, Map<string, Signature>>;
  done(): Promise<void>;
}

export async function watchedFolder(opts: Partial<InboxOptions> = {}): Promise<WatchedForTest> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-watched-')));
  const dir = path.join(root, 'watched');
  await fs.mkdir(dir);
  const folder = newFolder(dir, 'settings', 'default');
  folder.real = dir;
  folder.held = await holdFolder(dir, { protectedPlaces: { isPlace: () => false } } as unknown as Parameters<typeof holdFolder>[1]);
  folder.status = 'watching';
  const known = new Map<string, Map<string, Signature>>();
  let seq = 0;
  const w = {
    folders: [folder],
    counts: zeroCounts(),
    opts: { ...defaultInboxOptions(1 << 20), openWriters: async () => null, ...opts },
    record: { known } as unknown as InboxRecord,
    active: () => true,
    nextSeq: () => ++seq,
  };
  return {
    root,
    dir,
    folder,
    w,
    known,
    done: async () => {
      closeWatch(folder);
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}
