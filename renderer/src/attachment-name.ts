// What a file is called on the page (issue 38, item 4): the name the person gave it, as the server kept it
// (`display_name`: spaces, dashes and every script intact), else the name it is stored under. Routes that open
// or ask about the file still take its stored `filename`.
import type { Attachment } from './api.js';

export function shownName(a: Pick<Attachment, 'filename' | 'display_name'>): string {
  return typeof a.display_name === 'string' && a.display_name ? a.display_name : a.filename;
}
