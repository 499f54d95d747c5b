// What each of the store's operations does to a session (sessions.ts SessionStore: rename, flags, deletion,
// the conversation's settings, a message, a version, an attachment): the input checked before anything is queued,
// then a change applied to a draft by the write queue (write-queue.ts). Apart from the store so each rule is a pure
// function of a session, tested without a database (session-edits.test.ts).
import type * as wire from '../core/wire.js';
import { ValueError } from '../core/errors.js';
import { refuseFullConversation, refuseOverCap } from './caps.js';
import { appendWritten } from './queued.js';
import {
  MAX_MESSAGE_CHARS,
  MAX_MODEL_CHARS,
  MAX_SYSTEM_PROMPT_CHARS,
  MAX_TITLE_CHARS,
  SYSTEM_PROMPT_TOO_LONG,
  type Attachment,
  type AttachmentAlongside,
  type Session,
} from './session-shapes.js';
import { isUserRowAt, NO_SUCH_MESSAGE, refuseWhileTurnRuns, withNewVersion } from './versions.js';

/** A change of one session, applied by the write queue to a draft; a throw refuses it alone. */
export type Edit = (session: Session) => void;

/** The conversation's own settings a caller may change (POST /api/session/settings). */
export interface ConversationChange {
  model?: string | null;
  system_prompt?: string | null;
  connection?: string | null;
  keep_out_of_mcp?: boolean;
}

/** Control characters away, trimmed, cut to MAX_TITLE_CHARS; an empty title is refused. */
export function renameEdit(title: string): Edit {
  const clean = title.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
  if (!clean) throw new ValueError('Title must not be empty');
  return (s) => {
    s.title = clean;
  };
}

/** Pin or archive, or take that back; a flag left undefined stays as it is. */
export function flagsEdit(flags: { pinned?: boolean; archived?: boolean }): Edit {
  return (s) => {
    for (const key of ['pinned', 'archived'] as const) {
      if (flags[key] === true) s[key] = true;
      else if (flags[key] === false) delete s[key];
    }
  };
}

/** Mark deleted at `at`; refused while a turn runs (SessionBusy, 409): it would store rows into a hidden session. */
export function markDeletedEdit(at: Date): Edit {
  return (s) => {
    refuseWhileTurnRuns(s);
    s.deleted_at = at.toISOString();
  };
}

/** Take the deletion mark back. */
export const restoreEdit: Edit = (s) => {
  delete s.deleted_at;
};

/**
 * The conversation's own model and system prompt. A field left undefined is kept; null or blank removes it, so
 * the agent settings' model (or no system prompt) applies again. Too long a model or prompt is refused here.
 */
export function conversationEdit(change: ConversationChange): Edit {
  const model = change.model?.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (model !== undefined && model.length > MAX_MODEL_CHARS) throw new ValueError(`Model name too long (max ${MAX_MODEL_CHARS} characters)`);
  const prompt = change.system_prompt;
  if (prompt && prompt.length > MAX_SYSTEM_PROMPT_CHARS) throw new ValueError(SYSTEM_PROMPT_TOO_LONG);
  return (s) => {
    if (change.model !== undefined) {
      if (model) s.model = model;
      else delete s.model;
    }
    if (prompt !== undefined) {
      if (prompt?.trim()) s.system_prompt = prompt;
      else delete s.system_prompt;
    }
    if (change.connection !== undefined && (change.connection || undefined) !== s.connection) {
      // The model picked belongs to the connection left: the new one's own model applies unless one is given.
      if (change.model === undefined) delete s.model;
      if (change.connection) s.connection = change.connection;
      else delete s.connection;
    }
    // Stored only when on, so a conversation never switched has no field (and exports as before).
    if (change.keep_out_of_mcp === true) s.keep_out_of_mcp = true;
    else if (change.keep_out_of_mcp === false) delete s.keep_out_of_mcp;
  };
}

function refuseLongMessage(text: string): void {
  if (text.length > MAX_MESSAGE_CHARS) throw new ValueError(`Message too long (max ${MAX_MESSAGE_CHARS} characters)`);
}

/**
 * A user row of the one stored shape, within the messages cap; while a turn runs it waits for the turn's rows
 * (queued.ts): `queued` is told which, each time the change is applied.
 */
export function messageEdit(text: string, attachments: wire.ChatAttachment[], queued: (waits: boolean) => void): Edit {
  refuseLongMessage(text);
  return (s) => {
    refuseFullConversation(s);
    queued(appendWritten(s, { role: 'user', content: text, timestamp: Date.now() / 1000, attachments }) === 'queued');
  };
}

/** A new version of the conversation from the user row at `at` on, the one it replaces kept (versions.ts). */
export function versionEdit(at: unknown, text: string, attachments: wire.ChatAttachment[]): Edit {
  refuseLongMessage(text);
  return (s) => {
    refuseWhileTurnRuns(s);
    if (!isUserRowAt(s.messages, at)) throw new ValueError(NO_SUCH_MESSAGE);
    s.messages = withNewVersion(s.messages, at, [{ role: 'user', content: text, timestamp: Date.now() / 1000, attachments }]);
  };
}

/** The attachment's record, within the attachments cap, with `alongside`'s change (the Inbox's arrival row). */
export function attachmentEdit(attachment: Attachment, alongside: AttachmentAlongside): Edit {
  return (s) => {
    // Refused, not dropped: the caller removes the file it placed (attachments/store-upload.ts).
    refuseOverCap('attachments', s.attachments.length);
    s.attachments.push(attachment);
    // Only with the record: a row never names a file the session does not hold.
    alongside.change?.(s);
  };
}
