import { describe, expect, it } from 'vitest';
import { modelChoices } from './conversation-settings.js';

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
