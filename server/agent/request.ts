// The turn manager's `buildRequest`: a session's stored rows and the new turn, as input.ts turns them into
// Chat Completions messages. Rows of both stored shapes count as history (wire.d.ts `Message`): those stored
// without asking the agent carry `text`, a turn's rows carry `content`.
import { messageText } from '../store/sessions.js';
import { buildTurnMessages, type StoredMessage } from './input.js';
import type { BuildRequestInput } from './turns.js';
import type { TurnRequest } from './types.js';

/** `attachmentDir(sessionId)`: the one folder a turn's attachments may be read from. */
export function requestBuilder(stateDir: string, attachmentDir: (sessionId: string) => string) {
  return async ({ session, config, text, attachments, model, signal }: BuildRequestInput): Promise<TurnRequest> => {
    const history: StoredMessage[] = session.messages.map((m) => ({ ...m, content: messageText(m) }));
    const messages = await buildTurnMessages(history, text, attachments, config, {
      roots: [attachmentDir(session.session_id)],
      stateDir,
      signal,
    });
    return { sessionId: session.session_id, messages, ...(model ? { model } : {}) };
  };
}
