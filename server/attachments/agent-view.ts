// What the agent will get from one attachment, before it is sent (issue 25: "each chip tells what the agent will
// get"): the summary the content engine's reader (server/content/) gives for the attachment as a turn would send it, with
// a fresh budget of the conversation's configured contextChars. Computed once and kept beside the attachment in
// a hidden sidecar (`.<name>.agent-view.json`, never listed, previewed or exported: hidden names never are),
// keyed by the file's size and mtime, the budget and AGENT_VIEW_VERSION, so a changed file, another budget or a
// new reader computes it again. The chip (GET /api/attachment/summary) and MCP read the same sidecar.
import path from 'node:path';
import type { App } from '../app.js';
import { Budget, readAttachment, type ReadSummary } from '../content/index.js';
import { HttpError } from '../core/errors.js';
import { guessMime } from '../core/mime.js';
import type { ChatAttachment } from '../core/wire.js';
import { readBeside, writeBeside } from '../office/sidecar.js';
import { cutRedacted, redactText, type RedactedText } from '../projections/index.js';
import { serverValue, type ServerValue } from '../projections/brand.js';
import { DEFAULT_AGENT_CONTEXT_CHARS } from '../settings/table.js';
import type { AnchoredDir } from '../store/anchored.js';
import type { Session } from '../store/sessions.js';
import { ATTACHMENT_NOT_FOUND, openAttachmentPath } from './open.js';
import { createLimiter } from '../core/limiter.js';

/**
 * The readers' version: raise it when a reader in content/ changes what it gives (a new kind read, other
 * words), so every cached summary is computed again instead of promising what the agent no longer gets.
 */
export const AGENT_VIEW_VERSION = 4;
/** Summaries computed at once: each may convert an Office file or transcribe audio (seconds of CPU each), on a
 *  machine that also runs the turn; the rest wait their turn rather than starve it. */
export const MAX_AGENT_VIEW_COMPUTATIONS = 2;
/** A sidecar is a few hundred bytes of JSON; anything longer is not ours and is computed over. */
const MAX_AGENT_VIEW_SIDECAR_BYTES = 16 * 1024;
const SIDECAR_SUFFIX = '.agent-view.json';

export interface AgentView {
  state: ReadSummary['state'];
  text: string;
}

interface Cached extends AgentView {
  version: number;
  size: number;
  mtime_ms: number;
  context_chars: number;
}

/** The wire's `{ state, text }` (GET /api/attachment/summary, MCP's `agent_view`): the text redacted like every
 *  free text that leaves (a future reader's words may quote a file's name). */
export function publicAgentView(view: AgentView): { state: ServerValue; text: RedactedText } {
  return { state: serverValue(view.state), text: redactText(view.text) };
}

/** MCP's line after an attachment's text or image: `agent_view: partial: cut at 1,000 of 3,000 characters`. */
export function agentViewNote(view: { state: ServerValue; text: RedactedText }): RedactedText {
  return cutRedacted(view.text, (t) => `agent_view: ${view.state}: ${t}`);
}

/** The agent-view sidecar of the attachment named `name` (hidden: its name starts with a dot). */
export function agentViewSidecarName(name: string): string {
  return `.${name}${SIDECAR_SUFFIX}`;
}

const gate = createLimiter(MAX_AGENT_VIEW_COMPUTATIONS);
/** One computation per attachment and key at a time: a chip and an MCP client asking together share it. */
const inFlight = new Map<string, Promise<AgentView>>();
let computed = 0;

/** How many summaries were computed (not read from a sidecar) in this process: tests prove the cache with it. */
export function agentViewComputations(): number {
  return computed;
}

/** The conversation's budget, as its next turn would have it: its connection's contextChars, or the default. */
function contextCharsFor(app: App, session: Session): number {
  return app.loadAgentConfig(session.connection)?.contextChars ?? DEFAULT_AGENT_CONTEXT_CHARS;
}

/** The attachment as a turn would send it: the session's record of the upload when it has one, an extracted
 *  archive for a folder. What it is, the content engine decides from its bytes, as for the turn. */
function asSent(session: Session, name: string, full: string, isDir: boolean): ChatAttachment {
  if (isDir) return { kind: 'extraction', name, path: full, extracted: true };
  const record = session.attachments.find((a) => a.path === full);
  const mime = record?.mime ?? guessMime(name);
  // A file stored decompressed is named with the .gz it came from, in the turn and so on its chip.
  const from = record?.decompressed_from ? { decompressed_from: record.decompressed_from } : {};
  return { kind: 'file', filename: name, path: full, size: record?.size ?? 0, mime, is_image: record?.is_image ?? false, ...from };
}

async function cached(dir: AnchoredDir, name: string): Promise<Cached | undefined> {
  const read = await readBeside(dir, agentViewSidecarName(name), MAX_AGENT_VIEW_SIDECAR_BYTES);
  if (!read || read.size > MAX_AGENT_VIEW_SIDECAR_BYTES) return undefined;
  try {
    const c = JSON.parse(read.bytes.toString('utf8')) as Cached;
    return ['ready', 'partial', 'unreadable'].includes(c.state) && typeof c.text === 'string' ? c : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the agent will get from the attachment `name` (a top-level entry of the session's attachment folder: an
 * upload or an extraction folder), from its sidecar when that still fits the file, else computed and stored.
 * 404 (ATTACHMENT_NOT_FOUND) for anything else: a nested path, a hidden name, a name not there.
 */
export async function agentView(app: App, session: Session, name: string): Promise<AgentView> {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\\') || path.isAbsolute(name)) throw new HttpError(404, ATTACHMENT_NOT_FOUND);
  const at = await openAttachmentPath(app.config.stateDir, session.session_id, name).catch((err: unknown) => {
    throw err instanceof HttpError && err.status === 404 ? new HttpError(404, ATTACHMENT_NOT_FOUND) : err;
  });
  try {
    if (at.segments.length !== 1 || at.segments[0] !== name) throw new HttpError(404, ATTACHMENT_NOT_FOUND);
    const dir = at.root;
    const stat = await dir.lstat(name).catch(() => undefined);
    if (!stat || !(stat.isFile() || stat.isDirectory())) throw new HttpError(404, ATTACHMENT_NOT_FOUND);
    const key = { version: AGENT_VIEW_VERSION, size: stat.size, mtime_ms: stat.mtimeMs, context_chars: contextCharsFor(app, session) };
    const have = await cached(dir, name);
    if (have && have.version === key.version && have.size === key.size && have.mtime_ms === key.mtime_ms && have.context_chars === key.context_chars) {
      return { state: have.state, text: have.text };
    }
    const full = path.join(dir.path, name);
    const flight = `${full}\0${JSON.stringify(key)}`;
    let running = inFlight.get(flight);
    if (!running) {
      running = gate(async () => {
        computed += 1;
        const read = await readAttachment(asSent(session, name, full, stat.isDirectory()), new Budget(key.context_chars), {
          roots: [dir.path],
          stateDir: app.config.stateDir,
          signal: app.stopping,
        });
        const view: AgentView = { state: read.summary.state, text: read.summary.text };
        // A sidecar that cannot be written (a full disk) only costs computing it again next time.
        await writeBeside(dir, agentViewSidecarName(name), Buffer.from(JSON.stringify({ ...key, ...view })), { replace: true }).catch(() => {});
        // Removed meanwhile (a chip taken off while its summary was computed): its sidecar goes with it, as the
        // removal would have taken it had it been there already.
        if (!(await dir.lstat(name).catch(() => undefined))) await dir.unlink(agentViewSidecarName(name)).catch(() => {});
        return view;
      }).finally(() => inFlight.delete(flight));
      inFlight.set(flight, running);
    }
    return await running;
  } finally {
    await at.root.close();
  }
}
