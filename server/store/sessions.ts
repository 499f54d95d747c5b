// Sessions as JSON files in the state directory, one per session, written atomically and serialized per
// session so two concurrent updates cannot lose each other's changes.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { HttpError, isDiskFull, ValueError } from '../core/errors.js';
import { log } from '../core/log.js';
import type * as wire from '../core/wire.js';
import { normalizeAttachments, normalizeMessage, type Message } from './messages.js';
import { isUserRowAt, NO_SUCH_MESSAGE, refuseWhileTurnRuns, withNewVersion, type Fork } from './versions.js';

export type { Message } from './messages.js';

export const MAX_TITLE_CHARS = 200;
export const MAX_MESSAGE_CHARS = 100_000;
export const MAX_MESSAGES_PER_SESSION = 10_000;
export const MAX_ATTACHMENTS_PER_SESSION = 10_000;
/** A model name: the longest ids listed by OpenRouter and Hugging Face-served models are under 100 characters. */
export const MAX_MODEL_CHARS = 200;
/**
 * A conversation's system prompt. Long personas and house rules run to a few thousand characters; 20,000 holds
 * those several times over while taking a tenth of the default per-turn context budget (200,000
 * characters, settings/table.ts), which the prompt is drawn from first (agent/input.ts).
 */
export const MAX_SYSTEM_PROMPT_CHARS = 20_000;
export const SYSTEM_PROMPT_TOO_LONG = `System prompt too long (max ${MAX_SYSTEM_PROMPT_CHARS} characters)`;
const SESSION_ID = /^[0-9a-f]{12}$/;
/**
 * A session file larger than this is not loaded at start. Replies are bounded now (agent/turns.ts
 * MAX_REPLY_BYTES), but an older Satchel stored a 400 MB reply whole: parsing it took 2 GB and 6.8 s at every
 * start. 64 MiB is some fifteen replies cut at their bound and parses in about 0.1 s; a larger file is left on
 * disk untouched (nothing is lost), named in a warning, and absent from the list until it is made smaller.
 */
export const MAX_SESSION_FILE_BYTES = 64 * 1024 * 1024;

/** The warning for a session file over MAX_SESSION_FILE_BYTES. */
export function oversizedSessionWarning(file: string, size: number): string {
  const mib = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;
  return `session file ${file} is ${mib(size)}, over the ${mib(MAX_SESSION_FILE_BYTES)} Satchel loads; not loaded, left on disk as it is`;
}

/** Section 2: internal message fields, never part of a public projection (projections/sessions.ts `publicMessage`). */
export const INTERNAL_MESSAGE_FIELDS = [
  'api_content',
  '_row_id',
  '_state_db_row_id',
  '_db_row_id',
  'state_db_row_id',
  '_active_turn_token',
  '_active_turn_user',
  '_fork_child_turn',
  '_webui_trusted_agent_input_text',
  '_webui_unmatched_native_image_mirror',
  // Satchel's: the other versions of the conversation from this row on (versions.ts); the wire has `versions`.
  '_versions',
  // The Hermes mark of an answered turn (agent/hermes-continuity.ts).
  '_hermes_turn',
] as const;

/**
 * Internal session fields, never part of a public projection: a turn's fork until its rows are stored
 * (versions.ts); Hermes' session id and its counter (agent/hermes-continuity.ts); when the person deleted it
 * (sessions/deletion.ts), which a deleted session is never shown with anyway.
 */
export const INTERNAL_SESSION_FIELDS = ['_pending_versions', '_hermes', 'deleted_at'] as const;

export type Attachment = wire.Attachment;

/** A stored session: the wire shape, with stored messages. */
export interface Session extends Omit<wire.Session, 'messages'> {
  messages: Message[];
  /** While a turn that makes a new version runs: the versions its first stored row will carry (versions.ts). */
  _pending_versions?: Fork;
  /** Deleted by the person at this time (ISO): hidden from every list and read until it is purged or restored. */
  deleted_at?: string;
}

export const SESSION_NOT_FOUND = 'Session not found';

/** What a store update may be: most changes are activity and move the session's `updated_at`; a flag is not. */
interface UpdateOptions {
  /** Set `updated_at` to now (default true). Pinning, archiving, deleting or restoring a session is no activity. */
  touch?: boolean;
  /** Apply the change to a deleted session too (only deletion's own steps do). */
  deleted?: boolean;
}

export function isSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID.test(id);
}

/** A row's text: every row has one shape once loaded (messages.ts), so this is its `content`. */
export function messageText(message: wire.Message): string {
  return message.content;
}

export function sessionSummary(s: Session): wire.SessionSummary {
  return {
    session_id: s.session_id,
    title: s.title,
    workspace: s.workspace,
    profile: s.profile,
    created_at: s.created_at,
    updated_at: s.updated_at,
    message_count: s.messages.length,
    ...(s.pinned ? { pinned: true } : {}),
    ...(s.archived ? { archived: true } : {}),
  };
}

/** A session as its file holds it, in the one shape every reader expects (messages.ts). */
function loadedSession(parsed: Session): Session {
  const messages: unknown[] = Array.isArray(parsed.messages) ? parsed.messages : [];
  const session: Session = { ...parsed, messages: messages.map(normalizeMessage), attachments: parsed.attachments ?? [] };
  if (parsed.pending_attachments !== undefined) session.pending_attachments = normalizeAttachments(parsed.pending_attachments);
  return session;
}

/** The file's text, or its size when that is over `max` (then nothing is read). */
async function readUnless(file: string, max: number): Promise<string | number> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > max) return size;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** A change waiting for the next write of its session, with the caller's promise. */
interface PendingChange {
  change: (session: Session) => void;
  resolve: (session: Session) => void;
  reject: (err: unknown) => void;
  touch: boolean;
}

export const DISK_FULL_SESSION = 'Not enough disk space to save the session';

/** A failed session write: a full disk is 507 with its own text, anything else goes on as it is. */
function writeFailure(err: unknown): unknown {
  return isDiskFull(err) ? new HttpError(507, DISK_FULL_SESSION) : err;
}

/**
 * The batch applied to a copy of `base`. One copy per batch, not per change: a copy is as large as the session,
 * and 32 uploads into a session of 1,000 attachments copied it 32 times. A change that throws halfway may leave
 * part of itself in a shared copy, so then the batch is applied again with a copy per change, and the change
 * that throws (it does so again, on the same session) is rejected alone.
 */
function applyChanges(base: Session, batch: PendingChange[]): { draft: Session; carried: PendingChange[] } {
  const shared = structuredClone(base);
  try {
    for (const item of batch) item.change(shared);
    return { draft: shared, carried: batch };
  } catch {
    // Below, change by change.
  }
  let draft = base;
  const carried: PendingChange[] = [];
  for (const item of batch) {
    const next = structuredClone(draft);
    try {
      item.change(next);
    } catch (err) {
      item.reject(err);
      continue;
    }
    draft = next;
    carried.push(item);
  }
  return { draft, carried };
}

export class SessionStore {
  /** What is on disk: a change shows here only once its write has succeeded. */
  private readonly sessions = new Map<string, Session>();
  /** Changes that arrived while a write of their session was on disk; the next write takes them all. */
  private readonly pending = new Map<string, PendingChange[]>();
  private readonly writing = new Set<string>();
  /** The write loop of a session while one runs: remove() waits for it before the file goes. */
  private readonly draining = new Map<string, Promise<void>>();
  private readonly dir: string;

  constructor(stateDir: string) {
    this.dir = path.join(stateDir, 'sessions');
  }

  async load(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    for (const name of await fs.readdir(this.dir)) {
      const id = name.replace(/\.json$/, '');
      if (!name.endsWith('.json') || !isSessionId(id)) continue;
      try {
        const file = path.join(this.dir, name);
        // The size first, from the open file: a bloated file is never read into memory.
        const text = await readUnless(file, MAX_SESSION_FILE_BYTES);
        if (typeof text === 'number') {
          log.warn(oversizedSessionWarning(file, text));
          continue;
        }
        const parsed = JSON.parse(text) as Session;
        if (parsed && parsed.session_id === id) this.sessions.set(id, loadedSession(parsed));
      } catch {
        // A file we cannot read is skipped, not fatal: one bad session must not lock the user out of the rest.
      }
    }
  }

  /** The session, unless there is none or it is deleted (a deleted session is answered as missing everywhere). */
  get(id: unknown): Session | undefined {
    const session = isSessionId(id) ? this.sessions.get(id) : undefined;
    return session && session.deleted_at === undefined ? session : undefined;
  }

  /** Every session not deleted, the latest activity first. */
  list(): Session[] {
    return [...this.sessions.values()].filter((s) => s.deleted_at === undefined).sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  }

  /** A deleted session not yet purged (for Undo), or undefined. */
  getDeleted(id: unknown): Session | undefined {
    const session = isSessionId(id) ? this.sessions.get(id) : undefined;
    return session?.deleted_at !== undefined ? session : undefined;
  }

  /** Every deleted session not yet purged (the purge at start finds them here). */
  listDeleted(): Session[] {
    return [...this.sessions.values()].filter((s) => s.deleted_at !== undefined);
  }

  /** A session id no session has: for an import, which places its files under the id before the session exists. */
  freshId(): string {
    let id: string;
    do id = randomBytes(6).toString('hex');
    while (this.sessions.has(id));
    return id;
  }

  async create(init: { workspace: string; profile: string }): Promise<Session> {
    const id = this.freshId();
    const now = new Date().toISOString();
    const session: Session = {
      session_id: id,
      title: 'Untitled',
      workspace: init.workspace,
      profile: init.profile,
      created_at: now,
      updated_at: now,
      messages: [],
      attachments: [],
    };
    // On disk first: a session that could not be saved never appears in the list.
    await this.persist(session).catch((err: unknown) => {
      throw writeFailure(err);
    });
    this.sessions.set(id, session);
    return session;
  }

  /**
   * Apply `change` to the session and persist it; the in-memory session changes only once the write has
   * succeeded, so what the API shows is what is on disk. Writes are grouped: while one write is on disk,
   * every further change joins a single follow-up write, so 32 concurrent uploads cost two fsyncs, not 32.
   * A change that throws is rejected alone; a write that fails rejects every change it carried (507 for a
   * full disk) and leaves the session as it was.
   */
  update(id: string, change: (session: Session) => void, opts: UpdateOptions = {}): Promise<Session> {
    const current = this.sessions.get(id);
    if (!current || (current.deleted_at !== undefined && !opts.deleted)) return Promise.reject(new ValueError(SESSION_NOT_FOUND));
    return new Promise<Session>((resolve, reject) => {
      const queue = this.pending.get(id) ?? [];
      queue.push({ change, resolve, reject, touch: opts.touch ?? true });
      this.pending.set(id, queue);
      if (!this.writing.has(id)) void this.drain(id);
    });
  }

  private drain(id: string): Promise<void> {
    this.writing.add(id);
    const run = (async () => {
      try {
        for (let batch = this.take(id); batch.length > 0; batch = this.take(id)) await this.writeBatch(id, batch);
      } finally {
        this.writing.delete(id);
        this.draining.delete(id);
      }
    })();
    // Set after the loop's first step, but before its end: an await always comes between them.
    this.draining.set(id, run);
    return run;
  }

  private take(id: string): PendingChange[] {
    const batch = this.pending.get(id) ?? [];
    this.pending.delete(id);
    return batch;
  }

  private async writeBatch(id: string, batch: PendingChange[]): Promise<void> {
    const base = this.sessions.get(id);
    if (!base) {
      for (const item of batch) item.reject(new ValueError(SESSION_NOT_FOUND));
      return;
    }
    const { draft, carried } = applyChanges(base, batch);
    if (carried.length === 0) return;
    if (carried.some((item) => item.touch)) draft.updated_at = new Date().toISOString();
    try {
      await this.persist(draft);
    } catch (err) {
      const failure = writeFailure(err);
      for (const item of carried) item.reject(failure);
      return;
    }
    // Removed while this write was on disk: remove() unlinks the file once this loop ends; nothing comes back.
    if (!this.sessions.has(id)) {
      for (const item of carried) item.reject(new ValueError(SESSION_NOT_FOUND));
      return;
    }
    this.sessions.set(id, draft);
    for (const item of carried) item.resolve(draft);
  }

  async rename(id: string, title: string): Promise<Session> {
    const clean = title.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
    if (!clean) throw new ValueError('Title must not be empty');
    return this.update(id, (s) => {
      s.title = clean;
    });
  }

  /** Pin or archive a session, or take that back: flags, not activity, so its place by last activity stays. */
  setFlags(id: string, flags: { pinned?: boolean; archived?: boolean }): Promise<Session> {
    return this.update(
      id,
      (s) => {
        for (const key of ['pinned', 'archived'] as const) {
          if (flags[key] === true) s[key] = true;
          else if (flags[key] === false) delete s[key];
        }
      },
      { touch: false },
    );
  }

  /**
   * Mark a session deleted: from now on it is answered as missing everywhere, until restore() or remove().
   * Refused while a turn runs (SessionBusy, 409): that turn would go on storing rows into a hidden session.
   */
  markDeleted(id: string, at: Date = new Date()): Promise<Session> {
    return this.update(
      id,
      (s) => {
        refuseWhileTurnRuns(s);
        s.deleted_at = at.toISOString();
      },
      { touch: false },
    );
  }

  /** Take a deletion back (Undo): the session is shown again as it was. Not found unless it is deleted. */
  restore(id: string): Promise<Session> {
    if (!this.getDeleted(id)) return Promise.reject(new ValueError(SESSION_NOT_FOUND));
    return this.update(
      id,
      (s) => {
        delete s.deleted_at;
      },
      { touch: false, deleted: true },
    );
  }

  /**
   * Forget a deleted session for good: its record leaves memory at once (no change can start on it any more),
   * then, once a write under way has ended, its file goes. Only a session marked deleted can be removed, so
   * the record is the last thing a purge takes (sessions/deletion.ts): a crash before it leaves it marked.
   */
  async remove(id: string): Promise<void> {
    if (!this.getDeleted(id)) throw new ValueError(SESSION_NOT_FOUND);
    this.sessions.delete(id);
    this.pending.get(id)?.forEach((item) => item.reject(new ValueError(SESSION_NOT_FOUND)));
    this.pending.delete(id);
    await this.draining.get(id);
    await fs.rm(path.join(this.dir, `${id}.json`), { force: true });
  }

  /**
   * The conversation's own model and system prompt (POST /api/session/settings). A field left undefined is kept;
   * null or blank removes it, so the agent settings' model (or no system prompt) applies again.
   */
  async setConversation(id: string, change: { model?: string | null; system_prompt?: string | null }): Promise<Session> {
    const model = change.model?.replace(/[\u0000-\u001f\u007f]/g, '').trim();
    if (model !== undefined && model.length > MAX_MODEL_CHARS) throw new ValueError(`Model name too long (max ${MAX_MODEL_CHARS} characters)`);
    const prompt = change.system_prompt;
    if (prompt && prompt.length > MAX_SYSTEM_PROMPT_CHARS) throw new ValueError(SYSTEM_PROMPT_TOO_LONG);
    return this.update(id, (s) => {
      if (change.model !== undefined) {
        if (model) s.model = model;
        else delete s.model;
      }
      if (prompt !== undefined) {
        if (prompt?.trim()) s.system_prompt = prompt;
        else delete s.system_prompt;
      }
    });
  }

  /**
   * Store a message without asking the agent (POST /api/session/message), as a user row of the one stored
   * shape (`{role, content, timestamp, attachments}`). A conversation turn stores its rows through turns.ts.
   */
  async addMessage(id: string, text: string, attachments: wire.ChatAttachment[]): Promise<Session> {
    if (text.length > MAX_MESSAGE_CHARS) throw new ValueError(`Message too long (max ${MAX_MESSAGE_CHARS} characters)`);
    return this.update(id, (s) => {
      if (s.messages.length >= MAX_MESSAGES_PER_SESSION) throw new ValueError('Session has too many messages');
      s.messages.push({ role: 'user', content: text, timestamp: Date.now() / 1000, attachments });
    });
  }

  /**
   * Store a message without asking the agent as a new version of the conversation from the user row at `at`
   * on (Edit with no agent connected): the version it replaces is kept (versions.ts). Refused while a turn runs.
   */
  async addVersion(id: string, at: unknown, text: string, attachments: wire.ChatAttachment[]): Promise<Session> {
    if (text.length > MAX_MESSAGE_CHARS) throw new ValueError(`Message too long (max ${MAX_MESSAGE_CHARS} characters)`);
    return this.update(id, (s) => {
      refuseWhileTurnRuns(s);
      if (!isUserRowAt(s.messages, at)) throw new ValueError(NO_SUCH_MESSAGE);
      s.messages = withNewVersion(s.messages, at, [{ role: 'user', content: text, timestamp: Date.now() / 1000, attachments }]);
    });
  }

  /**
   * Store a whole session made elsewhere (an imported conversation, export/import.ts) under its own id, which
   * must be unused (freshId). On disk first, as create: a session that could not be saved never appears.
   */
  async insert(session: Session): Promise<Session> {
    if (!isSessionId(session.session_id) || this.sessions.has(session.session_id)) throw new ValueError('Session id already in use');
    await this.persist(session).catch((err: unknown) => {
      throw writeFailure(err);
    });
    this.sessions.set(session.session_id, session);
    return session;
  }

  addAttachment(id: string, attachment: Attachment): Promise<Session> {
    return this.update(id, (s) => {
      if (s.attachments.length < MAX_ATTACHMENTS_PER_SESSION) s.attachments.push(attachment);
    });
  }

  private persist(session: Session): Promise<void> {
    return writeFileAtomic(path.join(this.dir, `${session.session_id}.json`), JSON.stringify(session, null, 2));
  }
}
