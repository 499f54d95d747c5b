// The turn manager's `buildRequest`: a session's stored rows and the new turn, as input.ts turns them into
// Chat Completions messages. Every stored row has one shape (store/messages.ts), its text in `content`.
import { buildTurnMessages } from './input.js';
import type { DocTexts } from '../context/doc-text.js';
import type { BuildRequestInput } from './turns.js';
import type { TurnRequest } from './types.js';

/**
 * `attachmentDir(sessionId)`: the one folder a turn's attachments may be read from. `onAttachmentText` is told
 * the text the agent got from an attachment (for the search index).
 */
export function requestBuilder(
  stateDir: string,
  attachmentDir: (sessionId: string) => string,
  onAttachmentText?: (sessionId: string, attachmentPath: string, text: string) => void,
  /** The app's one store of documents' whole texts, so a follow-up turn reads nothing again. */
  docTexts?: DocTexts,
) {
  return async ({ session, config, text, attachments, model, systemPrompt, signal, hermes, dry }: BuildRequestInput): Promise<TurnRequest> => {
    const roots = [attachmentDir(session.session_id)];
    const { messages, report } = await buildTurnMessages(session.messages, text, attachments, config, {
      roots,
      stateDir,
      signal,
      sessionId: session.session_id,
      ...(docTexts ? { docTexts } : {}),
      systemPrompt,
      ...(dry ? { dry } : {}),
      ...(onAttachmentText && !dry ? { onAttachmentText: (file: string, got: string) => onAttachmentText(session.session_id, file, got) } : {}),
    }, hermes !== undefined);
    return { sessionId: session.session_id, messages, report, ...(hermes ? { hermesSessionId: hermes.id } : {}), ...(model ? { model } : {}) };
  };
}
