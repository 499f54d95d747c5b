// The Inbox's watched folders as Settings shows them (docs/API.md "Inbox folders"). Apart from wire.d.ts (which
// re-exports it) so each topic of the API is one file under 400 lines.

/** GET and POST /api/inbox/folders, POST /api/inbox/pause (server/inbox/routes.ts): the watched folders. */
export type InboxFolderStatus = 'watching' | 'missing' | 'refused' | 'paused';
export interface InboxFolder {
  path: string;
  /** `env`: from SATCHEL_INBOX_FOLDERS (cannot be removed through the API); `settings`: added by the profile. */
  source: 'env' | 'settings';
  status: InboxFolderStatus;
  /** The rule's words when the folder is refused (or was moved or replaced while watched). */
  error?: string;
  /** Files in it that were not taken and why (unreadable, a name not UTF-8, a hard link): the latest few. */
  skipped?: InboxSkippedFile[];
}
export interface InboxSkippedFile {
  /** As the folder lists it; a byte that is not UTF-8 shows as U+FFFD. */
  name: string;
  reason: string;
}
export interface InboxCounts {
  arrived: number;
  duplicate: number;
  ignored: number;
  symlink: number;
  empty: number;
  too_large: number;
  refused: number;
  failed: number;
  /** Names beyond the per-scan limit now, across the folders (not a running total). */
  over_scan_limit: number;
  /** Files Satchel may not read (permissions). */
  unreadable: number;
  /** Files whose name is not valid UTF-8. */
  bad_name: number;
  /** Files with more than one link (a hard link may be to a file from anywhere, ~/.ssh/id_rsa). */
  hard_link: number;
}
export interface InboxFoldersResponse {
  folders: InboxFolder[];
  paused: boolean;
  /** Since the server started. */
  counts: InboxCounts;
}
