// What the Inbox watcher's parts share (watcher.ts builds it once and hands it to each): the folders, the counts
// shown in Settings, the timings and limits, the record, whether watching is on, and the order in which files last
// changed. One object rather than a reference to the watcher, so no part reaches into another's state.
import type { InboxCounts } from '../core/wire.js';
import type { Folder } from './folder.js';
import { filesOpenForWriting } from './open-writers.js';
import type { InboxRecord } from './record.js';
import { MAX_ARRIVALS_PER_MINUTE, MAX_FILES_PER_SCAN, MAX_WRITER_WAIT_MS, POLL_MS, RESCAN_MS, SETTLE_MS, type Signature } from './rules.js';

export interface InboxOptions {
  settleMs: number;
  pollMs: number;
  rescanMs: number;
  maxArrivalsPerMinute: number;
  maxFilesPerScan: number;
  /** The upload limit (SATCHEL_WEBUI_MAX_UPLOAD_MB): a watched file is an upload by other means. */
  maxFileBytes: number;
  /** How long a settled file some process still holds open for writing waits before it is read anyway. */
  maxWriterWaitMs: number;
  /** Of these paths, the ones held open for writing; null when that cannot be known (open-writers.ts). */
  openWriters(paths: ReadonlySet<string>): Promise<Set<string> | null>;
}

export function defaultInboxOptions(maxFileBytes: number): InboxOptions {
  return {
    settleMs: SETTLE_MS,
    pollMs: POLL_MS,
    rescanMs: RESCAN_MS,
    maxArrivalsPerMinute: MAX_ARRIVALS_PER_MINUTE,
    maxFilesPerScan: MAX_FILES_PER_SCAN,
    maxFileBytes,
    maxWriterWaitMs: MAX_WRITER_WAIT_MS,
    openWriters: (paths) => filesOpenForWriting(paths),
  };
}

/** A settled file, queued to be read and stored in the order files became complete. */
export interface Ready {
  folder: Folder;
  name: string;
  sig: Signature;
  seq: number;
}

export interface Watching {
  readonly folders: Folder[];
  readonly counts: InboxCounts;
  readonly opts: InboxOptions;
  readonly record: InboxRecord;
  /** Neither stopped nor paused. */
  active(): boolean;
  /** The next number in the order of changes across all folders. */
  nextSeq(): number;
}

export function zeroCounts(): InboxCounts {
  return { arrived: 0, duplicate: 0, ignored: 0, symlink: 0, empty: 0, too_large: 0, refused: 0, failed: 0, over_scan_limit: 0, unreadable: 0, bad_name: 0, hard_link: 0 };
}
