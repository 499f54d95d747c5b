// Sessions as JSON files in the state directory, one per session, written atomically and serialized per
// session so two concurrent updates cannot lose each other's changes.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { ValueError } from './errors.js';

export const MAX_TITLE_CHARS = 200;
export const MAX_MESSAGE_CHARS = 100_000;
export const MAX_MESSAGES_PER_SESSION = 10_000;
export const MAX_ATTACHMENTS_PER_SESSION = 10_000;
const SESSION_ID = /^[0-9a-f]{12}$/;

/** Section 2: internal message fields, never part of a public projection. */
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
] as const;

export interface Attachment {
  filename: string;
  path: string;
  size: number;
  mime: string;
  is_image: boolean;
}

export interface Message {
  role: string;
  text: string;
  attachments: Attachment[];
  created_at: string;
  [internal: string]: unknown;
}

export interface Session {
  session_id: string;
  title: string;
  workspace: string;
  profile: unknown;
  created_at: string;
  updated_at: string;
  messages: Message[];
  attachments: Attachment[];
}

export function isSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID.test(id);
}

/** The public projection: internal fields dropped from every message (redaction happens on the way out). */
export function publicSession(session: Session): Session {
  return {
    ...session,
    messages: session.messages.map((message) => {
      const copy: Message = { ...message };
      for (const field of INTERNAL_MESSAGE_FIELDS) delete copy[field];
      return copy;
    }),
  };
}

export function sessionSummary(s: Session) {
  return {
    session_id: s.session_id,
    title: s.title,
    workspace: s.workspace,
    profile: s.profile,
    created_at: s.created_at,
    updated_at: s.updated_at,
    message_count: s.messages.length,
  };
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  /** A write not yet started, which further changes join. */
  private readonly queued = new Map<string, Promise<void>>();
  /** The latest write of each session, started or not. */
  private readonly writing = new Map<string, Promise<void>>();
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
        const parsed = JSON.parse(await fs.readFile(path.join(this.dir, name), 'utf8')) as Session;
        if (parsed && parsed.session_id === id) this.sessions.set(id, { ...parsed, messages: parsed.messages ?? [], attachments: parsed.attachments ?? [] });
      } catch {
        // A file we cannot read is skipped, not fatal: one bad session must not lock the user out of the rest.
      }
    }
  }

  get(id: unknown): Session | undefined {
    return isSessionId(id) ? this.sessions.get(id) : undefined;
  }

  list(): Session[] {
    return [...this.sessions.values()].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  }

  async create(init: { workspace: string; profile: string }): Promise<Session> {
    let id: string;
    do id = randomBytes(6).toString('hex');
    while (this.sessions.has(id));
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
    this.sessions.set(id, session);
    await this.persist(session);
    return session;
  }

  /**
   * Apply `change` to the session and persist it. Changes apply in call order at once; writes are grouped:
   * while one write is on disk, every further change joins a single follow-up write, so 32 concurrent
   * uploads to one session cost two fsyncs, not 32.
   */
  async update(id: string, change: (session: Session) => void): Promise<Session> {
    const session = this.sessions.get(id);
    if (!session) throw new ValueError('Session not found');
    const draft = structuredClone(session);
    change(draft);
    draft.updated_at = new Date().toISOString();
    this.sessions.set(id, draft);
    await this.flush(id);
    return draft;
  }

  private flush(id: string): Promise<void> {
    const queued = this.queued.get(id);
    if (queued) return queued;
    const previous = this.writing.get(id) ?? Promise.resolve();
    const next = previous
      .catch(() => {})
      .then(async () => {
        this.queued.delete(id);
        const latest = this.sessions.get(id);
        if (latest) await this.persist(latest);
      });
    this.queued.set(id, next);
    this.writing.set(id, next);
    void next
      .finally(() => {
        if (this.writing.get(id) === next) this.writing.delete(id);
      })
      .catch(() => {});
    return next;
  }

  async rename(id: string, title: string): Promise<Session> {
    const clean = title.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
    if (!clean) throw new ValueError('Title must not be empty');
    return this.update(id, (s) => {
      s.title = clean;
    });
  }

  async addMessage(id: string, text: string, attachments: Attachment[]): Promise<Session> {
    if (text.length > MAX_MESSAGE_CHARS) throw new ValueError(`Message too long (max ${MAX_MESSAGE_CHARS} characters)`);
    return this.update(id, (s) => {
      if (s.messages.length >= MAX_MESSAGES_PER_SESSION) throw new ValueError('Session has too many messages');
      s.messages.push({ role: 'user', text, attachments, created_at: new Date().toISOString() });
    });
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
