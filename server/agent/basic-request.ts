// A text-only TurnRequest, used until input.ts (attachments as model input, the context budget) is wired in:
// Hermes gets the new user turn alone (its gateway keeps the history), other servers the stored history.
import { messageText } from '../store/sessions.js';
import type { BuildRequestInput } from './turns.js';
import type { ChatMessage, TurnRequest } from './types.js';

export function basicRequest({ session, config, text, attachments, model }: BuildRequestInput): TurnRequest {
  const named = attachments.map((a) => `[attached: ${'filename' in a ? a.filename : a.name} at ${a.path}]`);
  const user: ChatMessage = { role: 'user', content: [text, ...named].filter(Boolean).join('\n') };
  const history: ChatMessage[] =
    config.kind === 'hermes'
      ? []
      : session.messages
          // Rows that say why a turn failed are Satchel's words, not the agent's.
          .filter((m) => (m.role === 'user' || m.role === 'assistant') && !m._error && messageText(m))
          .map((m) => ({ role: m.role as 'user' | 'assistant', content: messageText(m) }));
  return { sessionId: session.session_id, messages: [...history, user], model };
}
