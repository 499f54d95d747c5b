import { describe, expect, it } from 'vitest';
import { gearWords, keepKeyQuestion, kindText, testResultText, TOOLS_REFUSED_TEXT, toolsView } from './agent-connection.js';

describe('the agent connection in words', () => {
  it('shows the test in its one sentence, and a failure with what to do', () => {
    expect(testResultText({ ok: true, models: ['m'], kind: 'openai', key_checked: false, message: 'Connected to an OpenAI-compatible server at 127.0.0.1:1234: 1 model, the key could not be checked.' })).toBe(
      'Connected to an OpenAI-compatible server at 127.0.0.1:1234: 1 model, the key could not be checked.',
    );
    expect(testResultText({ ok: false, type: 'auth_error', message: 'The agent at 127.0.0.1:8642 refused the API key (401).', hint: 'Check the key, or paste it again.' })).toBe(
      'The agent at 127.0.0.1:8642 refused the API key (401). Check the key, or paste it again.',
    );
    expect(testResultText({ ok: false, type: 'unreachable', message: 'Nothing is listening at 127.0.0.1:9.' })).toBe('Nothing is listening at 127.0.0.1:9.');
  });

  it('the gear invites a connection only while none is set up', () => {
    expect(gearWords(null)).toEqual({ title: 'Connect an agent', heading: 'Connect an agent' });
    expect(gearWords({ base_url: null })).toEqual({ title: 'Connect an agent', heading: 'Connect an agent' });
    expect(gearWords({ base_url: 'http://127.0.0.1:8642/v1' })).toEqual({ title: 'Agent settings', heading: 'Chat agent' });
  });

  it('names the detected kind in the server’s words', () => {
    const kinds = [
      { kind: 'hermes' as const, label: 'Hermes Agent’s gateway' },
      { kind: 'openai' as const, label: 'OpenAI-compatible server' },
    ];
    expect(kindText('hermes', kinds)).toBe('Detected: Hermes Agent’s gateway');
    expect(kindText('openai', kinds)).toBe('Detected: OpenAI-compatible server');
    expect(kindText('openai', []), 'the settings unread: the stored name').toBe('Detected: openai');
    expect(kindText(null, kinds)).toBe('Kind: detected on Test or Save');
  });

  it('asks about the saved key only when a new address would otherwise lose it, naming the address', () => {
    const saved = { base_url: 'http://127.0.0.1:8642', has_api_key: true };
    expect(keepKeyQuestion(saved, 'http://127.0.0.1:11434', '')).toBe('Keep the saved key and send it to http://127.0.0.1:11434?');
    expect(keepKeyQuestion(saved, 'http://127.0.0.1:8642/v1/', ''), 'the same agent').toBeUndefined();
    expect(keepKeyQuestion(saved, 'http://127.0.0.1:11434', 'sk-new'), 'a key typed for it').toBeUndefined();
    expect(keepKeyQuestion({ ...saved, has_api_key: false }, 'http://127.0.0.1:11434', ''), 'no key saved').toBeUndefined();
    expect(keepKeyQuestion(null, 'http://127.0.0.1:11434', '')).toBeUndefined();
  });

  it("shows Satchel's tools' box for OpenAI-compatible servers only, with a note when the server refused them", () => {
    expect(toolsView('openai', false)).toEqual({ hidden: false, note: '' });
    expect(toolsView(undefined, false)).toEqual({ hidden: false, note: '' });
    expect(toolsView('openai', true)).toEqual({ hidden: false, note: TOOLS_REFUSED_TEXT });
    expect(toolsView('hermes', true)).toEqual({ hidden: true, note: '' });
  });
});
