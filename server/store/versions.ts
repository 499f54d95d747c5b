// Versions of a conversation (issue 23: nothing is removed without a trace). Regenerate and Edit do not drop
// the exchange they replace: the conversation from that message on (the "tail") is kept as an earlier version,
// and the person can switch back to it. Like ChatGPT's and LibreChat's branches, but stored so that every reader
// that knows nothing of versions (the original's clients, the agent's input, MCP, titles) still reads one linear
// conversation: `messages` is always the version shown, and the others are kept beside it.
//
// Where they are kept: on the first row of the shown tail, the internal field `_versions` holds the other tails
// of that position, those before the shown one and those after it, in the order they were made. A tail is a
// list of rows as `messages` holds them, so a version may hold versions of its own further down (a branch of a
// branch), and switching is a swap of lists. The field is internal (never in a projection): the wire has the
// small `versions` summary instead (versionSummary).
import { HttpError, ValueError } from '../core/errors.js';
import type * as wire from '../core/wire.js';
import type { Message } from './messages.js';
import { capRefusal, refuseOverCap } from './caps.js';

// The cap on versions per position is one of a conversation's caps (caps.ts).
export { MAX_VERSIONS_PER_MESSAGE } from './caps.js';
export const TOO_MANY_VERSIONS = capRefusal('versions');
export const NO_SUCH_MESSAGE = 'message_index must be the index of one of your messages in the conversation';
export const NO_VERSIONS = 'That message has no other versions';
export const NO_SUCH_VERSION = 'version must be the index of one of the message’s versions';

/** The chat contract's text for a session whose turn is running (agent.md; agent/turn-texts.ts names it too). */
export const SESSION_BUSY = 'session already has an active stream';

/**
 * A change of the version shown while a turn runs: refused, because that turn's rows belong to the version it
 * was started on. 409 with the running stream's id, as POST /api/chat/start refuses a second turn.
 */
export class SessionBusy extends HttpError {
  constructor(readonly activeStreamId: string) {
    super(409, SESSION_BUSY, { active_stream_id: activeStreamId });
    this.name = 'SessionBusy';
  }
}

/** Throws SessionBusy when a turn of `s` is running (inside a store update: no turn can start meanwhile). */
export function refuseWhileTurnRuns(s: { active_stream_id?: string }): void {
  if (typeof s.active_stream_id === 'string') throw new SessionBusy(s.active_stream_id);
}

/** The field a fork's first shown row carries. */
export const VERSIONS_FIELD = '_versions';

/** The tails of one position other than the shown one, in the order they were made around it. */
export interface Fork {
  before: Message[][];
  after: Message[][];
}

function isTail(value: unknown): value is Message[] {
  return Array.isArray(value) && value.length > 0 && value.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row));
}

/** The fork a stored row carries, read defensively (a session file may have been edited by hand): none when malformed. */
export function forkOf(row: wire.Message | undefined): Fork | undefined {
  const raw = (row as Record<string, unknown> | undefined)?.[VERSIONS_FIELD] as { before?: unknown; after?: unknown } | undefined;
  if (!raw || typeof raw !== 'object') return undefined;
  const before = Array.isArray(raw.before) ? raw.before.filter(isTail) : [];
  const after = Array.isArray(raw.after) ? raw.after.filter(isTail) : [];
  return before.length + after.length > 0 ? { before, after } : undefined;
}

/** A tail with its first row freed of the fork it carried (the fork belongs to the position, not to one version). */
function detached(tail: readonly Message[]): Message[] {
  const [first, ...rest] = tail;
  if (!first) return [];
  const { [VERSIONS_FIELD]: _fork, ...row } = first;
  return [row as Message, ...rest];
}

/** `tail` as the shown version of a position that keeps `fork`. */
function attached(tail: readonly Message[], fork: Fork): Message[] {
  const [first, ...rest] = tail;
  if (!first) return [];
  if (fork.before.length + fork.after.length === 0) return [...tail];
  return [{ ...first, [VERSIONS_FIELD]: fork }, ...rest];
}

/** Is `at` the index of a row the person wrote (where a new version may start)? */
export function isUserRowAt(messages: readonly wire.Message[], at: unknown): at is number {
  return typeof at === 'number' && Number.isInteger(at) && at >= 0 && at < messages.length && messages[at]!.role === 'user';
}

/**
 * Start a new version at `at` (a user row): the conversation before it, and the fork the new version's first
 * row will carry, which keeps the replaced tail as the newest earlier version (a new version goes last, and is
 * the one shown).
 */
export function branch(messages: readonly Message[], at: number): { kept: Message[]; fork: Fork } {
  if (!isUserRowAt(messages, at)) throw new ValueError(NO_SUCH_MESSAGE);
  const tail = messages.slice(at);
  const old = forkOf(tail[0]) ?? { before: [], after: [] };
  // The versions there now (the others and the one shown), and one more.
  refuseOverCap('versions', old.before.length + old.after.length + 1);
  return { kept: messages.slice(0, at), fork: { before: [...old.before, detached(tail), ...old.after], after: [] } };
}

/** `messages` with `rows` as a new version from the user row at `at` on (the one replaced kept). */
export function withNewVersion(messages: readonly Message[], at: number, rows: readonly Message[]): Message[] {
  const { kept, fork } = branch(messages, at);
  const [first, ...rest] = rows;
  return first ? [...kept, { ...first, [VERSIONS_FIELD]: fork }, ...rest] : kept;
}

/** The conversation with version `version` (0-based, in the order made) shown at `at`, whose row carries a fork. */
export function showVersion(messages: readonly Message[], at: number, version: unknown): Message[] {
  if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= messages.length) throw new ValueError(NO_SUCH_MESSAGE);
  const fork = forkOf(messages[at]);
  if (!fork) throw new ValueError(NO_VERSIONS);
  const all = [...fork.before, detached(messages.slice(at)), ...fork.after];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0 || version >= all.length) throw new ValueError(NO_SUCH_VERSION);
  const chosen = all[version]!;
  return [...messages.slice(0, at), ...attached(chosen, { before: all.slice(0, version), after: all.slice(version + 1) })];
}

/** What the wire says of a row's versions: which is shown, how many, and the two levels people switch between. */
export function versionSummary(row: wire.Message): wire.MessageVersions | undefined {
  const fork = forkOf(row);
  if (!fork) return undefined;
  const said = (m: wire.Message | undefined) => JSON.stringify([m?.content ?? '', m?.attachments ?? []]);
  const index = fork.before.length;
  // What the person said in each version, in the order made (the shown one at `index`).
  const keys = [...fork.before.map((t) => said(t[0])), said(row), ...fork.after.map((t) => said(t[0]))];
  const shown = keys[index]!;
  // An Edit and a Regenerate after it made "3/3" with two identical messages (issue 38): the message's switcher
  // counts what was said, the reply's the replies to the message shown.
  const texts = [...new Set(keys)];
  const replies = keys.flatMap((k, i) => (k === shown ? [i] : []));
  return {
    index,
    count: keys.length,
    edited: texts.length > 1,
    message: { index: texts.indexOf(shown), count: texts.length, versions: texts.map((t) => (t === shown ? index : keys.lastIndexOf(t))) },
    reply: { index: replies.indexOf(index), count: replies.length, versions: replies },
  };
}

/** A tail that holds nothing of the agent's: the person's message, then only rows saying why the turn failed. */
export function failedOnly(tail: readonly wire.Message[]): boolean {
  return tail.length > 1 && tail.slice(1).every((r) => r._error === true && r._partial !== true);
}

/**
 * Where Regenerate starts at `at`: as branch(), except that a tail which only failed is replaced, not kept. A
 * retry after an error kept the error as version 1/2 (issue 38); there is nothing of the agent's in it to go back
 * to. The versions the position had before stay.
 */
export function branchForRegenerate(messages: readonly Message[], at: number): { kept: Message[]; fork: Fork | undefined } {
  if (!isUserRowAt(messages, at)) throw new ValueError(NO_SUCH_MESSAGE);
  const tail = messages.slice(at);
  if (!failedOnly(tail)) return branch(messages, at);
  return { kept: messages.slice(0, at), fork: forkOf(tail[0]) };
}
