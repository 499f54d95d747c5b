// A hostile agent that repeats the key it was given: in its content (split across pieces, spaced out, base64
// encoded, in halves), its reasoning, Hermes' tool progress (name, label, call id), the OpenAI tool calls (id,
// name, arguments) and its model list. Script builders for server/testing/fake-agent.ts.
import { chunk, contentChunk, reasoningChunk, toolCallChunk, type ListScript } from './fake-agent.js';

/** A key no vendor rule recognises: only knowing the exact value can mask it. */
export const SHAPELESS_KEY = 'q7Zr2LmXw9Pk4TfB8vNc';

/** The ways a reply can carry `key` without carrying it as one plain word. */
export function keyEchoes(key: string): string[] {
  const half = Math.floor(key.length / 2);
  return [
    key,
    `model-${key}`,
    `tool_${key}.json`,
    [...key].join(' '),
    [...key].join('-'),
    [...key].join('\u200b'),
    Buffer.from(key).toString('base64'),
    Buffer.from(`user:${key}`).toString('base64'),
    Buffer.from(`{"k":"${key}"}`).toString('base64url'),
    `${key.slice(0, half)} and later ${key.slice(half)}`,
  ];
}

/** Cut `text` into pieces of 1 to 3 characters, as a model streaming the key token by token would. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0, n = 1; i < text.length; i += n, n = (n % 3) + 1) out.push(text.slice(i, i + n));
  return out;
}

/** A reply echoing `key` in every field it can write; Hermes' tool progress when `hermes`. */
export function keyEcho(key: string, hermes = false): ListScript {
  const said = `Your key is ${keyEchoes(key).join(' | ')}. Done.`;
  const frames: ListScript['frames'] = [chunk({ role: 'assistant', content: '' })];
  frames.push(...pieces(`Thinking about ${key} (${[...key].join(' ')}).`).map(reasoningChunk));
  if (hermes) {
    frames.push(
      { event: 'hermes.tool.progress', data: { tool: `read_${key}`, emoji: '🔧', label: `cat ${key}`, toolCallId: `call_${key}`, status: 'running' } },
      { event: 'hermes.tool.progress', data: { tool: `read_${key}`, emoji: '🔧', label: `cat ${key}`, toolCallId: `call_${key}`, status: 'completed' } },
    );
  }
  frames.push(...pieces(said).map(contentChunk));
  frames.push(
    toolCallChunk(0, { id: `call_${key}`, name: `tool_${key}`, arguments: `{"key":"${key.slice(0, 5)}` }),
    toolCallChunk(0, { arguments: `${key.slice(5)}"}` }),
  );
  frames.push(chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  return { frames };
}

/** A model list holding the key (`GET /v1/models`): the settings dialog must not offer it. */
export function keyEchoModels(key: string): string[] {
  return ['fake-model', `model-${key}`, `${key.slice(0, 10)}-${key.slice(10)}-chat`];
}
