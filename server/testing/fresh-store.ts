// A SessionStore for tests that work on the store itself (no server): opened the way app.ts opens one (`load`:
// the migrations, an older Satchel's files moved in, the caches filled), on a state folder of the test's own
// under the system's temporary folder. Without the instance lock: a test may open a second store on the folder.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SessionStore } from '../store/sessions.js';

type StoreArgs = ConstructorParameters<typeof SessionStore>;

/** A store on `dir`, loaded. `limits` and `options` as SessionStore takes them (kept sessions, idle checkpoint). */
export async function openStore(dir: string, limits?: StoreArgs[1], options?: StoreArgs[2]): Promise<SessionStore> {
  const store = new SessionStore(dir, limits, options);
  await store.load();
  return store;
}

/** A new state folder named `<prefix>…` in the system's temporary folder. */
export const freshDir = (prefix: string): Promise<string> => fs.mkdtemp(path.join(os.tmpdir(), prefix));

export interface FreshStore {
  dir: string;
  store: SessionStore;
}

/** A new state folder (`freshDir`) with its store open on it; the folder is removed again if the store fails to open. */
export async function freshStore(prefix: string): Promise<FreshStore> {
  const dir = await freshDir(prefix);
  try {
    return { dir, store: await openStore(dir) };
  } catch (err) {
    await fs.rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The store closed, then its folder removed (what a test's afterEach undoes of `freshStore`). */
export async function removeStore({ dir, store }: FreshStore): Promise<void> {
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
}
