// The turn manager's `buildRequest`: a session's stored rows and the new turn, as input.ts turns them into
// Chat Completions messages. Every stored row has one shape (store/messages.ts), its text in `content`.
import { uriOfPath } from '../core/satchel-uri.js';
import type { DocTexts } from '../context/doc-text.js';
import { workspaceContext, type WorkspaceContext } from '../context/workspace.js';
import type { PlaceGuard } from '../store/protected.js';
import type { Session } from '../store/sessions.js';
import type { WorkspaceRoot } from '../content/index.js';
import { buildTurnMessages, type StoredMessage, type TurnInputOptions } from './input.js';
import type { BuildRequestInput } from './turns.js';
import type { TurnRequest } from './types.js';

/** A session's workspace as a turn may read it: its real path, and the places a walk of it must not reach. */
export interface TurnWorkspace {
  dir: string;
  guard?: PlaceGuard;
}

/** When the previous turn started (its user row's timestamp, epoch seconds); undefined before the first turn. */
export function previousTurnStart(rows: readonly StoredMessage[]): number | undefined {
  const row = rows.findLast((r) => r.role === 'user' && typeof r.timestamp === 'number');
  return row?.timestamp as number | undefined;
}

/**
 * The session's workspace as the turn gives it (context/workspace.ts) and as its files are read (the readers'
 * WorkspaceRoot: the same guard), or undefined when it has none, it is empty, it is no longer valid (removed, made
 * unsafe) or cannot be walked: the turn goes on without it.
 */
export async function turnWorkspace(
  session: Session,
  workspaceOf: ((session: Session) => Promise<TurnWorkspace | undefined>) | undefined,
): Promise<{ context: WorkspaceContext; root: WorkspaceRoot } | undefined> {
  const ws = await workspaceOf?.(session).catch(() => undefined);
  if (!ws) return undefined;
  const context = await workspaceContext(ws.dir, session.session_id, previousTurnStart(session.messages as StoredMessage[]), ws.guard).catch(() => undefined);
  // An empty workspace (every conversation has the default one) is not told of, nor reported: the agent gets
  // nothing from it.
  if (!context?.listing) return undefined;
  return { context, root: { dir: context.root, ...(ws.guard ? { guard: ws.guard } : {}) } };
}

/**
 * `attachmentDir(sessionId)`: the one folder a turn's attachments may be read from. `onAttachmentText` is told
 * the text the agent got from an attachment (for the search index). `workspaceOf`: the session's workspace
 * (validated; app.ts), undefined when it has none.
 */
export function requestBuilder(
  stateDir: string,
  attachmentDir: (sessionId: string) => string,
  onAttachmentText?: (sessionId: string, attachmentPath: string, text: string) => void,
  /** The app's one store of documents' whole texts, so a follow-up turn reads nothing again. */
  docTexts?: DocTexts,
  workspaceOf?: (session: Session) => Promise<TurnWorkspace | undefined>,
) {
  return async ({ session, config, text, attachments, model, systemPrompt, signal, hermes, dry }: BuildRequestInput): Promise<TurnRequest> => {
    const roots = [attachmentDir(session.session_id)];
    const ws = await turnWorkspace(session, workspaceOf);
    const opts: TurnInputOptions = {
      roots,
      stateDir,
      signal,
      sessionId: session.session_id,
      ...(docTexts ? { docTexts } : {}),
      systemPrompt,
      // Files are named to the agent by their Satchel URIs, never by their paths on this machine.
      agentUri: uriOfPath(session.session_id, roots[0]!, ws?.context.root),
      ...(dry ? { dry } : {}),
      ...(onAttachmentText && !dry ? { onAttachmentText: (file: string, got: string) => onAttachmentText(session.session_id, file, got) } : {}),
      ...(ws ? { workspace: ws.context, workspaceRoot: ws.root } : {}),
    };
    const { messages, report } = await buildTurnMessages(session.messages, text, attachments, config, opts, hermes !== undefined);
    return { sessionId: session.session_id, messages, report, ...(hermes ? { hermesSessionId: hermes.id } : {}), ...(model ? { model } : {}) };
  };
}
