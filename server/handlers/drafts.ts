// GET and PUT /api/session/draft: the composer's unsent text and chips per session, kept on the server so a
// reload or a restart (a new token each launch, so nothing in the page survives it) finds them again.
// DELETE /api/session/attachment: a chip taken off a draft takes its stored file with it.
import { readJsonBody } from '../http/body.js';
import { requireFields, ValueError } from '../core/errors.js';
import type { HandlerInput } from '../app.js';
import { sendJson } from '../http/respond.js';
import { visibleSession } from '../store/profiles.js';
import { type Session } from '../store/sessions.js';
import { publicSession, publicSessionDraft } from '../projections/index.js';
import { removeUnsentAttachment } from '../drafts/remove.js';
import { refuseOverCap } from '../store/caps.js';
import {
  MAX_DRAFT_LISTED_FILES,
  MAX_DRAFT_TEXT_CHARS,
  readDraft,
  writeDraft,
  type StoredDraft,
  type StoredDraftItem,
} from '../drafts/store.js';
import type * as wire from '../core/wire.js';
import { isExtractionFolder } from '../attachments/layout.js';

const isSessionFolder = (stateDir: string, session: Session, dest: string): boolean => isExtractionFolder(stateDir, session.session_id, dest);

/** The stored chips the session still has, as the composer shows them. */
function publicDraft(stored: StoredDraft, session: Session, stateDir: string): wire.SessionDraft {
  const known = new Map(session.attachments.map((a) => [a.path, a]));
  const attachments: wire.DraftAttachment[] = [];
  for (const item of stored.attachments) {
    const a = known.get(item.path);
    if (!a) continue; // removed since (the sweep, another window): the chip goes with it
    attachments.push(item.extract && isSessionFolder(stateDir, session, item.extract.dest) ? { ...a, extract: item.extract } : { ...a });
  }
  return stored.updated_at ? { text: stored.text, attachments, updated_at: stored.updated_at } : { text: stored.text, attachments };
}

function draftItems(value: unknown, session: Session, stateDir: string): StoredDraftItem[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ValueError('Invalid attachments');
  refuseOverCap('messageAttachments', 0, value.length);
  const known = new Set(session.attachments.map((a) => a.path));
  return value.map((item: unknown): StoredDraftItem => {
    const given = (typeof item === 'string' ? { path: item } : item) as { path?: unknown; extract?: unknown } | null;
    if (typeof given?.path !== 'string' || !known.has(given.path)) throw new ValueError('Unknown attachment');
    const x = given.extract as { dest?: unknown; extracted?: unknown; files?: unknown } | undefined | null;
    if (x === undefined || x === null) return { path: given.path };
    const files = Array.isArray(x.files) ? x.files.filter((f): f is string => typeof f === 'string') : [];
    if (typeof x.dest !== 'string' || !isSessionFolder(stateDir, session, x.dest) || !Number.isInteger(x.extracted) || (x.extracted as number) < 0) {
      throw new ValueError('Invalid extraction');
    }
    return { path: given.path, extract: { dest: x.dest, extracted: x.extracted as number, files: files.slice(0, MAX_DRAFT_LISTED_FILES) } };
  });
}

export async function getDraft({ ctx, app, profile }: HandlerInput): Promise<void> {
  const session = await visibleSession(app.sessions, ctx.url.searchParams.get('session_id'), profile);
  const stored = await readDraft(app.config.stateDir, session.session_id);
  await sendJson(ctx, 200, { draft: publicSessionDraft(publicDraft(stored, session, app.config.stateDir)) } satisfies { draft: wire.SessionDraft });
}

export async function putDraft({ ctx, app, profile }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const session = await visibleSession(app.sessions, body.session_id, profile);
  const text = body.text === undefined || body.text === null ? '' : body.text;
  if (typeof text !== 'string') throw new ValueError('Text must be a string');
  if (text.length > MAX_DRAFT_TEXT_CHARS) throw new ValueError(`Draft too long (max ${MAX_DRAFT_TEXT_CHARS} characters)`);
  const attachments = draftItems(body.attachments, session, app.config.stateDir);
  const stored = await writeDraft(app.config.stateDir, session.session_id, { text, attachments });
  await sendJson(ctx, 200, { draft: publicSessionDraft(publicDraft(stored, session, app.config.stateDir)) } satisfies { draft: wire.SessionDraft }, { compact: true });
}

export async function deleteAttachment({ ctx, app, profile }: HandlerInput): Promise<void> {
  const q = ctx.url.searchParams;
  const session = await visibleSession(app.sessions, q.get('session_id'), profile);
  const where = q.get('path');
  if (!where) throw new ValueError('Missing required field(s): path');
  const stored = await readDraft(app.config.stateDir, session.session_id);
  const dest = stored.attachments.find((a) => a.path === where)?.extract?.dest;
  const updated = await removeUnsentAttachment(app.config.stateDir, app.sessions, session, where, dest);
  app.events.publish({ name: 'session_updated', profile, data: { session_id: session.session_id } });
  await sendJson(ctx, 200, { ok: true, session: publicSession(updated) });
}
