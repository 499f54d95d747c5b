// What a turn writes into its session: rows appended, the pending turn cleared.
import { log } from '../core/log.js';
import { MAX_MESSAGES_PER_SESSION, type Message, type Session } from '../store/sessions.js';
import { VERSIONS_FIELD } from '../store/versions.js';

/** Seconds since the epoch, as rows store their time. */
export function now(): number {
  return Date.now() / 1000;
}

export function clearPending(s: Session): void {
  delete s._pending_versions;
  delete s.active_stream_id;
  delete s.pending_user_message;
  delete s.pending_attachments;
  delete s.pending_started_at;
}

export function pushRows(s: Session, rows: Message[]): void {
  // The cap counts rows already there: a turn's own rows always fit, so a full session still records why.
  if (s.messages.length >= MAX_MESSAGES_PER_SESSION) log.warn('session over its message cap; storing the turn anyway');
  // A turn that made a new version: its first row carries the versions it replaced (store/versions.ts).
  const fork = s._pending_versions;
  const [first, ...rest] = rows;
  if (fork && first) s.messages.push({ ...first, [VERSIONS_FIELD]: fork }, ...rest);
  else s.messages.push(...rows);
}
