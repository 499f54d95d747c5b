// Hermes Agent's gateway: OpenAI's wire (its body and stream, plus `hermes.tool.progress` events, which
// stream/parser.ts decodes for any connection), the model `hermes-agent`, on port 8642 by default. With a key
// it keeps a conversation's history under `X-Hermes-Session-Id` (hermes-continuity.ts), and every request to it
// is a whole agent run (its tools offered, a session created in its database): no title is asked of it and no
// completion checks its key.
import { agentUrl } from '../upstream-errors.js';
import { openai } from './openai.js';
import type { Dialect } from './dialect.js';

export const HERMES_SESSION_HEADER = 'X-Hermes-Session-Id';

export const hermes: Dialect = {
  kind: 'hermes',
  name: 'Hermes Agent’s gateway',
  label: 'Hermes Agent’s gateway',
  defaultModel: 'hermes-agent',
  defaultPort: '8642',
  turnUrl: (baseUrl) => agentUrl(baseUrl, 'chat/completions'),
  // Never Satchel's tools (takesSatchelTools): a request carrying them by mistake sends them no further.
  turnBody: (model, { tools: _tools, toolChoice: _choice, ...request }) => openai.turnBody(model, request),
  turnHeaders: (_config, request): Record<string, string> => (request.hermesSessionId ? { [HERMES_SESSION_HEADER]: request.hermesSessionId } : {}),
  keepsHistory: true,
  asksForTitle: false,
  keyCheckByCompletion: false,
  takesSatchelTools: false,
};
