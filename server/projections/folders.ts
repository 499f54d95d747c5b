// Folders as GET /api/folders and the folder routes answer them: a name is the person's own text (redacted like a
// title), the id and time the server's own.
import type { Folder } from '../store/folders.js';
import { redactText, serverValue, type RedactedText, type ServerValue } from './brand.js';

export interface PublicFolder {
  id: ServerValue;
  name: RedactedText;
  created_at: ServerValue;
  /** Conversations in it now (not deleted; archived ones counted). */
  count: number;
}

export function publicFolder(f: Folder, count: number): PublicFolder {
  return { id: serverValue(f.id), name: redactText(f.name), created_at: serverValue(f.created_at), count };
}
