import { describe, expect, it } from 'vitest';
import { connectionChoices, modelChoices } from './conversation-settings.js';

describe('modelChoices (the header’s model picker)', () => {
  const listed = { ok: true as const, models: ['llama3', 'qwen2'], model: 'llama3' };

  it('offers the agent default (named), then the agent’s models', () => {
    expect(modelChoices(listed, undefined)).toEqual([
      { value: '', label: 'Agent default (llama3)' },
      { value: 'llama3', label: 'llama3' },
      { value: 'qwen2', label: 'qwen2' },
    ]);
  });

  it('keeps the conversation’s model when the agent no longer lists it, saying so', () => {
    expect(modelChoices(listed, 'gpt-5').at(-1)).toEqual({ value: 'gpt-5', label: 'gpt-5 (not listed by the agent)' });
    expect(modelChoices(listed, 'qwen2')).toHaveLength(3);
  });

  it('without a list (no agent, or it could not be read): the default and the stored model only', () => {
    const failed = { ok: false as const, type: 'unreachable' as const, message: 'Nothing is listening at 127.0.0.1:9.' };
    expect(modelChoices(failed, 'qwen2')).toEqual([
      { value: '', label: 'Agent default' },
      { value: 'qwen2', label: 'qwen2 (not listed by the agent)' },
    ]);
    expect(modelChoices(null, undefined)).toEqual([{ value: '', label: 'Agent default' }]);
  });
});

describe('connectionChoices (the header’s agent connection picker)', () => {
  const base = { kind: 'openai' as const, model: null, timeout_ms: 600000, context_chars: 200000, has_api_key: true, from_env: [] };
  const list = {
    connections: [
      { ...base, id: 'main', name: '127.0.0.1:8642', base_url: 'http://127.0.0.1:8642', is_default: true },
      { ...base, id: '0123456789abcdef', name: 'Work box', base_url: 'http://10.0.0.5:11434/v1', is_default: false },
    ],
    default_id: 'main',
    max_connections: 16,
    max_name_chars: 80,
  };

  it('offers the default (named), then every connection by name and host', () => {
    expect(connectionChoices(list, undefined)).toEqual([
      { value: '', label: 'Default (127.0.0.1:8642)' },
      { value: 'main', label: '127.0.0.1:8642' },
      { value: '0123456789abcdef', label: 'Work box — 10.0.0.5:11434' },
    ]);
  });

  it('a conversation whose connection was deleted says the default answers', () => {
    expect(connectionChoices(list, 'ffffffffffffffff').at(-1)).toEqual({ value: 'ffffffffffffffff', label: 'Deleted connection — the default answers' });
    expect(connectionChoices(null, undefined)).toEqual([{ value: '', label: 'Default' }]);
  });
});
