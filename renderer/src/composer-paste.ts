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

/**
 * A paste longer than this many characters is offered as an attachment ("Attach as a file" / "Keep as text"): a
 * log, a document or a data dump reads better as a file the agent gets whole than as a message that fills the
 * screen, and a few screens of text (about a page and a half) is where a message stops being one.
 */
export const LONG_PASTE_CHARS = 4000;

/** Signs of Markdown at a line's start, or a link: a pasted text with them is kept as `.md`. */
const MARKDOWN = /^(?:#{1,6}\s|```|>\s|[-*]\s\S|\d+\.\s\S|\|.*\|\s*$)|\[[^\]\n]+\]\([^)\s]+\)/m;

/** The text of a paste as the box holds it: a textarea keeps `\n` line ends only. */
export function pastedText(e: ClipboardEvent): string {
  return (e.clipboardData?.getData('text/plain') ?? '').replace(/\r\n?/g, '\n');
}

/** A long paste's file: `pasted-text-<date>.md` when it reads as Markdown, else `.txt`, in UTF-8. */
export function pastedTextFile(text: string, now = new Date()): File {
  const stamp = now.toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const markdown = MARKDOWN.test(text.slice(0, LONG_PASTE_CHARS * 4));
  return new File([text], `pasted-text-${stamp}.${markdown ? 'md' : 'txt'}`, { type: markdown ? 'text/markdown' : 'text/plain' });
}
