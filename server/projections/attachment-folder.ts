// GET /api/attachment/folder as it leaves the server: every name is one an extraction wrote to the server's disk
// and the UI sends back (to preview a file inside), so it goes out exactly as it is (brand.ts).
import type { AttachmentFolder } from '../core/wire.js';
import { serverValue, type ServerValue } from './brand.js';

export interface PublicAttachmentFolder {
  name: ServerValue;
  files: { path: ServerValue; size: number }[];
  total: number;
  complete: boolean;
}

export function publicAttachmentFolder(f: AttachmentFolder): PublicAttachmentFolder {
  return { name: serverValue(f.name), files: f.files.map((x) => ({ path: serverValue(x.path), size: x.size })), total: f.total, complete: f.complete };
}
