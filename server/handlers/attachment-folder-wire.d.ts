// The renderer's import of GET /api/attachment/folder's shape, declared in server/wire.d.ts with the others.
// Kept only until renderer/src/preview.ts and folder-preview-view.ts import it from server/wire.js (outside
// this change's files); delete it then.
export type { AttachmentFolder, FolderFile } from '../wire.js';
