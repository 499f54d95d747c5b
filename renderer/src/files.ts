// Turning a drop, a paste or a picker into a flat list of files with their folder-relative paths.
// Folders arrive as FileSystemEntry trees (webkitGetAsEntry), which must be taken while the drop event is
// being dispatched: after the handler returns, the DataTransfer is emptied.

export interface PickedFile {
  file: File;
  /** "folder/sub/name.txt" for files from a folder, else just the name. */
  relativePath: string;
}

/** Refuse to walk absurd trees: a dropped home folder should fail clearly, not hang the window. */
export const MAX_PICKED_FILES = 5000;

export class TooManyFiles extends Error {
  constructor() {
    super(`That drop holds more than ${MAX_PICKED_FILES} files. Drop a smaller folder, or an archive of it.`);
    this.name = 'TooManyFiles';
  }
}

/** The minimal shape of the FileSystem entry API used here (lets tests pass plain objects). */
export interface EntryLike {
  isFile: boolean;
  isDirectory: boolean;
  name: string;
  fullPath?: string;
  file?(ok: (f: File) => void, fail: (e: unknown) => void): void;
  createReader?(): { readEntries(ok: (entries: EntryLike[]) => void, fail: (e: unknown) => void): void };
}

function entryFile(entry: EntryLike): Promise<File> {
  return new Promise((resolve, reject) => {
    if (!entry.file) return reject(new Error(`Cannot read ${entry.name}`));
    entry.file(resolve, reject);
  });
}

/** readEntries hands out a directory in batches (100 in Chromium) until it returns an empty one. */
async function readAll(entry: EntryLike): Promise<EntryLike[]> {
  const reader = entry.createReader?.();
  if (!reader) return [];
  const all: EntryLike[] = [];
  for (;;) {
    const batch = await new Promise<EntryLike[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

export async function walkEntries(entries: EntryLike[], out: PickedFile[] = [], prefix = ''): Promise<PickedFile[]> {
  for (const entry of entries) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isFile) {
      if (out.length >= MAX_PICKED_FILES) throw new TooManyFiles();
      out.push({ file: await entryFile(entry), relativePath: rel });
    } else if (entry.isDirectory) {
      await walkEntries(await readAll(entry), out, rel);
    }
  }
  return out;
}

/**
 * Files of a drop or paste. Entries are taken synchronously (see above); when the platform gives none
 * (synthetic events, some paste sources) the flat file list is used, keeping any webkitRelativePath.
 */
export function filesFromDataTransfer(dt: DataTransfer): Promise<PickedFile[]> {
  const entries: EntryLike[] = [];
  const loose: File[] = [];
  for (const item of Array.from(dt.items ?? [])) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? (item.webkitGetAsEntry() as EntryLike | null) : null;
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) loose.push(f);
    }
  }
  if (entries.length === 0 && loose.length === 0) loose.push(...Array.from(dt.files ?? []));
  return (async () => {
    const out = fromFileList(loose);
    if (entries.length) await walkEntries(entries, out);
    return out;
  })();
}

export function fromFileList(files: Iterable<File>): PickedFile[] {
  const out: PickedFile[] = [];
  for (const file of files) {
    if (out.length >= MAX_PICKED_FILES) throw new TooManyFiles();
    out.push({ file, relativePath: file.webkitRelativePath || file.name });
  }
  return out;
}

/** The folder part of a relative path ("a/b/c.txt" → "a/b", "c.txt" → ""). */
export function dirOf(relativePath: string): string {
  const idx = relativePath.lastIndexOf('/');
  return idx === -1 ? '' : relativePath.slice(0, idx);
}

export function joinPath(a: string, b: string): string {
  if (!a) return b;
  if (!b) return a;
  return `${a.replace(/\/+$/, '')}/${b.replace(/^\/+/, '')}`;
}

/** True when a drag carries files (not text or a link being dragged around the page). */
export function dragHasFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes('Files');
}
