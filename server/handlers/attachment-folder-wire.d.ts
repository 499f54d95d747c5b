// The wire shape of GET /api/attachment/folder (docs/API.md): the files below a folder of the session's
// attachment folder (an extracted archive), declared once for the server that sends it and the UI that shows it.

export interface FolderFile {
  /** Relative to the folder listed, `/`-separated. */
  path: string;
  size: number;
}

export interface AttachmentFolder {
  /** The folder, relative to the session's attachment folder (as `name` of /api/attachment/preview takes it). */
  name: string;
  /** The first files in path order (depth first, names sorted), at most MAX_FOLDER_FILES_LISTED. */
  files: FolderFile[];
  /** How many files the folder holds (a lower bound when `complete` is false). */
  total: number;
  /** False when the walk stopped at MAX_FOLDER_ENTRIES_WALKED before seeing every entry. */
  complete: boolean;
}
