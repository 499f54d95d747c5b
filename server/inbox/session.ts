// The Inbox conversation: one per profile, titled "Inbox", where files from watched folders (and, once wired, the
// quick-capture window and "Open with Satchel") arrive. Its id is remembered in `<state>/inbox-sessions.json`
// (written atomically) rather than as a flag on the session: a small file is read without touching the
// session database's schema, and a session that is gone (deleted, purged, or deleted and waiting for Undo) is
// simply not found by its id, so the next arrival makes a new Inbox.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { App } from '../app.js';
import { log } from '../core/log.js';
import { writeFileAtomic } from '../store/atomic.js';
import { isValidProfileName, sessionVisible } from '../store/profiles.js';
import { sessionSummary, type Session } from '../store/sessions.js';

export const INBOX_TITLE = 'Inbox';
const STORE_FILE = 'inbox-sessions.json';

/** One lookup or creation at a time per state folder: two arrivals at once must not make two Inboxes. */
const locks = new Map<string, Promise<unknown>>();

/**
 * The remembered ids as this server last read or wrote them. Only findOrMake writes the file, so it is read once
 * per running server, not on every file that arrives in any conversation (inbox/prepare.ts asks for each upload:
 * an open, a stat, a read and a close per upload, or a failed open where there is no Inbox yet).
 */
const known = new WeakMap<App, Promise<Record<string, string>>>();

function rememberedIds(app: App): Promise<Record<string, string>> {
  let ids = known.get(app);
  if (!ids) {
    ids = readIds(app.config.stateDir);
    known.set(app, ids);
  }
  return ids;
}

async function readIds(stateDir: string): Promise<Record<string, string>> {
  try {
    const parsed: unknown = JSON.parse(await fs.readFile(path.join(stateDir, STORE_FILE), 'utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.fromEntries(Object.entries(parsed).filter(([k, v]) => isValidProfileName(k) && typeof v === 'string'));
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('inbox: the remembered Inbox conversations could not be read; a new one is made', err);
  }
  return {};
}

async function findOrMake(app: App, profile: string): Promise<Session> {
  // Read afresh here (a lookup or creation is rare, and holds the lock): what is read is remembered.
  const ids = await readIds(app.config.stateDir);
  known.set(app, Promise.resolve(ids));
  const found = ids[profile] ? await app.sessions.get(ids[profile]) : undefined;
  if (found && sessionVisible(found.profile, profile)) return found;
  const now = new Date().toISOString();
  const workspace = await app.workspaces.validate(app.workspaces.fallbackWorkspace);
  // Made whole with its title (one write, not a create and a rename): an "Untitled" Inbox is never seen.
  const session = await app.sessions.insert({
    session_id: app.sessions.freshId(),
    title: INBOX_TITLE,
    workspace,
    profile,
    created_at: now,
    updated_at: now,
    messages: [],
    attachments: [],
  });
  const next = { ...ids, [profile]: session.session_id };
  await writeFileAtomic(path.join(app.config.stateDir, STORE_FILE), JSON.stringify(next, null, 2));
  known.set(app, Promise.resolve(next));
  app.events.publish({ name: 'session_created', profile, data: { session: sessionSummary(session) } });
  return session;
}

/** The profile's Inbox conversation, made (and announced) when there is none or the last one was deleted. */
export function inboxSession(app: App, profile: string): Promise<Session> {
  if (!isValidProfileName(profile)) return Promise.reject(new Error('Invalid profile name'));
  const key = app.config.stateDir;
  const run = (locks.get(key) ?? Promise.resolve()).catch(() => {}).then(() => findOrMake(app, profile));
  const tail = run.catch(() => {});
  locks.set(key, tail);
  void tail.then(() => {
    if (locks.get(key) === tail) locks.delete(key);
  });
  return run;
}

/** Whether `sessionId` is the Inbox conversation of `profile` (as remembered; a deleted one no longer is). */
export async function isInboxSession(app: App, profile: string, sessionId: string): Promise<boolean> {
  const ids = await rememberedIds(app);
  return ids[profile] === sessionId;
}
