// The session's workspace as the agent is given it each turn (issue 36): its name (the folder's base name, never
// its path), a bounded listing of its files, the files new or changed since the previous turn started (read into
// the turn like attachments) and the other files (documents for passages). What the agent is told of a workspace
// is what MCP's listing shows of it: hidden entries, credential stores and protected places left out (the guard:
// store/protected.ts, mcp/kept-out.ts), every folder opened through its parent's descriptor and no symlink ever
// followed (store/anchored-walk.ts), so a link to /etc or to the state folder lists and reads nothing.
//
// A workspace may be the home folder or a checkout with 100,000 files: the walk is bounded in entries, depth and
// time, breadth first (so what is near the top is listed first whatever lies deep below), and the listing says
// when it stopped.
import path from 'node:path';
import { guessMime } from '../core/mime.js';
import { isCredentialPath, isHiddenName } from '../core/paths.js';
import { workspaceUri } from '../core/satchel-uri.js';
import type { FileAttachment } from '../core/wire.js';
import { AnchoredDir } from '../store/anchored.js';
import { openInside } from '../store/anchored-walk.js';
import type { PlaceGuard } from '../store/protected.js';
import type { ConversationDoc, WorkspaceContext } from './types.js';

/** Files named in the listing: enough for the agent to see what a project holds, bounded for the budget. */
export const MAX_WORKSPACE_LISTED = 200;
/** Characters of the listing at most: it is drawn from the turn's budget before any earlier document. */
export const MAX_WORKSPACE_LISTING_CHARS = 12_000;
/** Entries (files and folders) one walk looks at: each costs a stat, and a turn waits for the walk. */
export const MAX_WORKSPACE_ENTRIES_WALKED = 5_000;
/** Folders deep the walk goes: no project a person works on nests what matters deeper. */
export const MAX_WORKSPACE_WALK_DEPTH = 16;
/** Milliseconds a walk may take (a slow or network disk): the turn starts, with what was seen by then. */
export const MAX_WORKSPACE_WALK_MS = 500;
/** Entries of a folder stat'ed at once: the stats (one per file, for its size and time) are the walk's cost, and
 *  the thread pool runs a few at a time; more would only queue ahead of other requests' file work. */
const WALK_STATS_AT_ONCE = 16;
/** New or changed files read into one turn, newest first: a checkout switched to another branch changes thousands. */
export const MAX_WORKSPACE_FILES_READ = 10;
/** Other workspace files offered as documents for passages, newest first. */
export const MAX_WORKSPACE_DOCS = 200;
/** A file larger than this is listed but not offered for passages: reading it for a chunk costs the turn too much. */
export const MAX_WORKSPACE_DOC_BYTES = 32 * 1024 * 1024;

// Declared in types.ts (the layer's shapes, where the turn's plan names it).
export type { WorkspaceContext } from './types.js';

interface Found {
  rel: string;
  size: number;
  mtimeMs: number;
}

interface Walked {
  files: Found[];
  /** Why the walk stopped before seeing every entry; undefined when it saw them all. */
  stopped?: string;
}

/** Control characters (a newline in a file name) would let a name write lines of its own into the prompt. */
function printable(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The regular files below `root`, breadth first, names in code point order in each folder, within the bounds. */
async function walk(root: AnchoredDir, guard: PlaceGuard | undefined, now: () => number): Promise<Walked> {
  const started = now();
  const above = root.path.split(path.sep).filter(Boolean);
  const shown = (segments: readonly string[]) => !isHiddenName(segments.at(-1)!) && !isCredentialPath([...above, ...segments]);
  const out: Walked = { files: [] };
  const queue: string[][] = [[]];
  let looked = 0;
  // Looked at before each folder and each batch of stats: on a slow disk the stats are what take the time.
  const late = (): boolean => {
    if (now() - started <= MAX_WORKSPACE_WALK_MS) return false;
    out.stopped = `the listing stops after ${MAX_WORKSPACE_WALK_MS} ms of looking`;
    return true;
  };
  while (queue.length > 0) {
    const segments = queue.shift()!;
    if (late()) return out;
    // Opened from the root along real folder names, each checked against the protected places (a throw: the
    // folder is left out); a folder swapped for a symlink since it was seen is refused or resolved inside the root.
    const dir = await openInside(root, segments, guard ? { check: guard.check } : {}).catch(() => undefined);
    if (!dir) continue;
    try {
      const entries = (await dir.readdir().catch(() => []))
        .filter((d) => (d.isFile() || d.isDirectory()) && shown([...segments, d.name]))
        .sort((a, b) => byName(a.name, b.name));
      for (let i = 0; i < entries.length; i += WALK_STATS_AT_ONCE) {
        if (late()) return out;
        const batch = entries.slice(i, i + Math.min(WALK_STATS_AT_ONCE, MAX_WORKSPACE_ENTRIES_WALKED - looked));
        looked += batch.length;
        // lstat, never stat: an entry swapped for a symlink since the readdir is not a file here.
        const stats = await Promise.all(batch.map((d) => (d.isFile() ? dir.lstat(d.name).catch(() => undefined) : undefined)));
        batch.forEach((d, k) => {
          const child = [...segments, d.name];
          if (d.isDirectory()) {
            if (child.length > MAX_WORKSPACE_WALK_DEPTH) out.stopped = `the listing stops ${MAX_WORKSPACE_WALK_DEPTH} folders deep`;
            else queue.push(child);
            return;
          }
          const stat = stats[k];
          if (stat?.isFile()) out.files.push({ rel: child.join('/'), size: stat.size, mtimeMs: stat.mtimeMs });
        });
        if (batch.length < Math.min(WALK_STATS_AT_ONCE, entries.length - i)) {
          out.stopped = `the listing stops after looking at ${MAX_WORKSPACE_ENTRIES_WALKED.toLocaleString('en-US')} entries`;
          return out;
        }
      }
    } finally {
      await dir.close();
    }
  }
  return out;
}

/** The listing's text: the heading, at most MAX_WORKSPACE_LISTED files sorted by path within the character
 *  bound, and a line for the rest. `files` are in walk order: the shallowest are the ones listed. */
function listingOf(name: string, walked: Walked): { text: string; listed: number } {
  const total = walked.files.length;
  // An empty workspace (every conversation has one: the default folder) gives the agent nothing to know of.
  if (total === 0 && !walked.stopped) return { text: '', listed: 0 };
  const count = `${walked.stopped ? 'at least ' : ''}${total.toLocaleString('en-US')} ${total === 1 ? 'file' : 'files'}`;
  const heading = `The conversation has a workspace "${printable(name)}" (${count}):`;
  const chosen = walked.files.slice(0, MAX_WORKSPACE_LISTED).sort((a, b) => byName(a.rel, b.rel));
  const tail = (listed: number): string[] => {
    const lines: string[] = [];
    const more = total - listed;
    if (more > 0) lines.push(`- … and ${walked.stopped ? 'at least ' : ''}${more.toLocaleString('en-US')} more ${more === 1 ? 'file' : 'files'}`);
    if (walked.stopped) lines.push(`- … ${walked.stopped}; the workspace holds more`);
    return lines;
  };
  // Room for the longest tail the listing can end with, so the bound holds whatever is cut.
  const room = MAX_WORKSPACE_LISTING_CHARS - heading.length - tail(0).join('\n').length - 2;
  const lines: string[] = [];
  let used = 0;
  for (const f of chosen) {
    const line = `- ${printable(f.rel)} (${f.size} bytes)`;
    if (used + line.length + 1 > room) break;
    lines.push(line);
    used += line.length + 1;
  }
  return { text: [heading, ...lines, ...tail(lines.length)].join('\n'), listed: lines.length };
}

function docOf(sessionId: string, root: string, f: Found): ConversationDoc {
  const attachment: FileAttachment = {
    kind: 'file',
    // The name the readers head the file's text with: its path in the workspace, as the listing names it.
    filename: f.rel,
    path: path.join(root, ...f.rel.split('/')),
    size: f.size,
    mime: guessMime(f.rel),
    is_image: false,
  };
  return { key: `workspace:${f.rel}`, name: f.rel, origin: 'workspace', attachment, uri: workspaceUri(sessionId, f.rel) };
}

/**
 * The workspace `dir` (a real path, validated by app.workspaces.validate) of session `sessionId` as its turn gives
 * it. `since`: when the previous turn started (epoch seconds); a file modified after it is `changed`, and on a
 * conversation's first turn (undefined) every file is new to the agent. Throws only when the folder itself cannot
 * be opened (removed since it was validated): the turn then has no workspace.
 */
export async function workspaceContext(dir: string, sessionId: string, since: number | undefined, guard?: PlaceGuard, now: () => number = performance.now.bind(performance)): Promise<WorkspaceContext> {
  await guard?.fresh();
  const root = await AnchoredDir.open(dir);
  let walked: Walked;
  try {
    walked = await walk(root, guard, now);
  } finally {
    await root.close();
  }
  const name = path.basename(root.path);
  const { text, listed } = listingOf(name, walked);
  const newest = [...walked.files].sort((a, b) => b.mtimeMs - a.mtimeMs || byName(a.rel, b.rel));
  const isChanged = (f: Found) => since === undefined || f.mtimeMs / 1000 > since;
  const changed = newest.filter(isChanged).slice(0, MAX_WORKSPACE_FILES_READ);
  const read = new Set(changed);
  const files = newest.filter((f) => !read.has(f) && f.size <= MAX_WORKSPACE_DOC_BYTES).slice(0, MAX_WORKSPACE_DOCS);
  return {
    name,
    listing: text,
    listed,
    total: walked.files.length,
    changed: changed.map((f) => docOf(sessionId, root.path, f)),
    files: files.map((f) => docOf(sessionId, root.path, f)),
    root: root.path,
  };
}
