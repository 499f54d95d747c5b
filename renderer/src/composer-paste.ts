// Files pasted into the composer: screenshots paste as "image.png", so each gets a distinct, dated name and
// several pasted at once don't collide.
import { fromFileList, type PickedFile } from './files.js';

/** Pasted files, screenshots renamed `pasted-<date>[-n].<ext>`; other names stay. */
export function namePasted(files: readonly File[], now = new Date()): File[] {
  const stamp = now.toISOString().replace(/[:.]/g, '-').slice(0, 19);
  return files.map((f, i) =>
    /^image\.\w+$/.test(f.name) ? new File([f], `pasted-${stamp}${files.length > 1 ? `-${i + 1}` : ''}.${f.name.split('.').pop()}`, { type: f.type }) : f,
  );
}

/** The files of a paste event, or none; a paste of files without text does not also paste their names. */
export function pastedFiles(e: ClipboardEvent): PickedFile[] {
  const dt = e.clipboardData;
  if (!dt) return [];
  const files = Array.from(dt.files ?? []);
  if (files.length === 0) return [];
  if (!dt.types.includes('text/plain')) e.preventDefault();
  return fromFileList(namePasted(files));
}
