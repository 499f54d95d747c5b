// The quick-capture window's draft: its text, its staged uploads and the destination picked, one small JSON file
// per profile under <state>/drafts, so an Esc (the window closes) or a restart finds them again. Kept apart from
// the conversations' own drafts (store.ts): the main window's composer and the capture window may both be open
// on the same conversation, and neither may overwrite what the other holds. The uploads are stored in one
// conversation (`session_id`, the capture's staging one); the sweep keeps them while this draft names them.
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../store/atomic.js';
import { isSessionId } from '../store/sessions.js';
import { DRAFTS_DIR, MAX_DRAFT_FILE_BYTES, serialized } from './store.js';

/** Where a capture goes: a conversation by id, the Inbox conversation, or a new conversation asking the agent. */
export const CAPTURE_DESTINATIONS = ['current', 'inbox', 'ask'] as const;
export type CaptureDestination = (typeof CAPTURE_DESTINATIONS)[number];

export function isCaptureDestination(v: unknown): v is CaptureDestination {
  return typeof v === 'string' && (CAPTURE_DESTINATIONS as readonly string[]).includes(v);
}

export interface StoredCaptureDraft {
  text: string;
  /** Paths of uploads stored in `session_id`. */
  attachments: string[];
  /** The conversation the uploads are stored in; null while there are none. */
  session_id: string | null;
  destination: CaptureDestination;
  updated_at: string;
}

export const EMPTY_CAPTURE_DRAFT: StoredCaptureDraft = { text: '', attachments: [], session_id: null, destination: 'current', updated_at: '' };

const FILE_PREFIX = 'capture-';

/** A profile name is validated elsewhere; hex keeps whatever it is a plain file name here. */
function captureFile(stateDir: string, profile: string): string {
  return path.join(stateDir, DRAFTS_DIR, `${FILE_PREFIX}${Buffer.from(profile, 'utf8').toString('hex')}.json`);
}

function parse(raw: string): StoredCaptureDraft {
  const v = JSON.parse(raw) as Partial<StoredCaptureDraft> | null;
  const session = typeof v?.session_id === 'string' && isSessionId(v.session_id) ? v.session_id : null;
  return {
    text: typeof v?.text === 'string' ? v.text : '',
    attachments: session && Array.isArray(v?.attachments) ? v.attachments.filter((p): p is string => typeof p === 'string') : [],
    session_id: session,
    destination: isCaptureDestination(v?.destination) ? v.destination : 'current',
    updated_at: typeof v?.updated_at === 'string' ? v.updated_at : '',
  };
}

async function readFile(file: string): Promise<StoredCaptureDraft> {
  try {
    const stat = await fs.lstat(file);
    if (!stat.isFile() || stat.size > MAX_DRAFT_FILE_BYTES) return EMPTY_CAPTURE_DRAFT;
    return parse(await fs.readFile(file, 'utf8'));
  } catch {
    // None, or unreadable: a draft is never worth an error.
    return EMPTY_CAPTURE_DRAFT;
  }
}

export function readCaptureDraft(stateDir: string, profile: string): Promise<StoredCaptureDraft> {
  return readFile(captureFile(stateDir, profile));
}

/** Store the profile's capture draft; an empty one (no text, no uploads, the default destination) removes the file. */
export function writeCaptureDraft(stateDir: string, profile: string, draft: Omit<StoredCaptureDraft, 'updated_at'>): Promise<StoredCaptureDraft> {
  const file = captureFile(stateDir, profile);
  return serialized(file, async () => {
    if (!draft.text && draft.attachments.length === 0 && draft.destination === 'current') {
      await fs.rm(file, { force: true });
      return EMPTY_CAPTURE_DRAFT;
    }
    const stored: StoredCaptureDraft = { ...draft, updated_at: new Date().toISOString() };
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(file, JSON.stringify(stored));
    return stored;
  });
}

/** The uploads every profile's capture draft keeps, by conversation: the sweep leaves them alone. */
export async function captureKeeps(stateDir: string): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const names = await fs.readdir(path.join(stateDir, DRAFTS_DIR)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(FILE_PREFIX) || !name.endsWith('.json')) continue;
    const draft = await readFile(path.join(stateDir, DRAFTS_DIR, name));
    if (!draft.session_id) continue;
    const set = out.get(draft.session_id) ?? new Set<string>();
    for (const p of draft.attachments) set.add(p);
    out.set(draft.session_id, set);
  }
  return out;
}
