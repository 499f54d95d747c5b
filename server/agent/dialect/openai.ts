// An OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM, a hosted API): `/v1/chat/completions`,
// streamed, the whole trimmed history in every turn, titles asked of it, Satchel's own tools offered (agent/tools/).
import { agentUrl } from '../upstream-errors.js';
import type { Dialect } from './dialect.js';

export const openai: Dialect = {
  kind: 'openai',
  name: 'an OpenAI-compatible server',
  label: 'OpenAI-compatible server',
  defaultModel: '',
  turnUrl: (baseUrl) => agentUrl(baseUrl, 'chat/completions'),
  // Usage comes in the last chunk only when asked for (the metering line and `done`'s usage).
  turnBody: (model, request) => ({
    model,
    stream: true,
    stream_options: { include_usage: true },
    messages: request.messages,
    ...(request.tools?.length ? { tools: request.tools, ...(request.toolChoice ? { tool_choice: request.toolChoice } : {}) } : {}),
  }),
  turnHeaders: () => ({}),
  keepsHistory: false,
  asksForTitle: true,
  keyCheckByCompletion: true,
  takesSatchelTools: true,
};
