// The dialects as values: what each one decides, read where the agent code once branched on `config.kind`.
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS, BAD_AGENT_KIND, dialectOf, guessKind, HERMES_SESSION_HEADER, isAgentKind, kindLabels } from './index.js';
import type { AgentConfig, TurnRequest } from '../types.js';
import { TOOL_SPECS } from '../tools/specs.js';

const config = (kind: AgentConfig['kind']): AgentConfig => ({ baseUrl: 'http://127.0.0.1:1/', model: 'm', kind, apiKey: 'sk-0123456789abcdef', idleTimeoutMs: 1000, contextChars: 1000 });
const request: TurnRequest = { hermesSessionId: 'satchel-abc', messages: [{ role: 'user', content: 'Hi' }] };

describe('the agent dialects', () => {
  it('are the kinds the wire names, each refused the same way when unknown', () => {
    expect(AGENT_KINDS).toEqual(['hermes', 'openai']);
    expect(BAD_AGENT_KIND).toBe('Invalid agent setting kind: expected hermes or openai');
    expect(isAgentKind('hermes') && isAgentKind('openai')).toBe(true);
    for (const bad of ['', 'Hermes', 'toString', '__proto__', 1, null]) expect(isAgentKind(bad), String(bad)).toBe(false);
    expect(kindLabels()).toEqual([
      { kind: 'hermes', label: 'Hermes Agent’s gateway' },
      { kind: 'openai', label: 'OpenAI-compatible server' },
    ]);
  });

  it('post a turn to /v1/chat/completions with the same streamed body; only Hermes gets the session header', () => {
    for (const kind of AGENT_KINDS) {
      const d = dialectOf(kind);
      expect(d.turnUrl('http://127.0.0.1:8642/v1/').href).toBe('http://127.0.0.1:8642/v1/chat/completions');
      expect(d.turnBody('m', request)).toEqual({ model: 'm', stream: true, stream_options: { include_usage: true }, messages: request.messages });
    }
    expect(dialectOf('hermes').turnHeaders(config('hermes'), request)).toEqual({ [HERMES_SESSION_HEADER]: 'satchel-abc' });
    expect(dialectOf('hermes').turnHeaders(config('hermes'), { messages: [] })).toEqual({});
    expect(dialectOf('openai').turnHeaders(config('openai'), request)).toEqual({});
  });

  it("carry Satchel's tools only for OpenAI-compatible servers: Hermes runs its own and never gets them", () => {
    const withTools: TurnRequest = { ...request, tools: [...TOOL_SPECS], toolChoice: 'none' };
    expect(dialectOf('openai').takesSatchelTools).toBe(true);
    expect(dialectOf('openai').turnBody('m', withTools)).toMatchObject({ tools: TOOL_SPECS, tool_choice: 'none' });
    expect(dialectOf('hermes').takesSatchelTools).toBe(false);
    const hermesBody = dialectOf('hermes').turnBody('m', withTools);
    expect(hermesBody).not.toHaveProperty('tools');
    expect(hermesBody).not.toHaveProperty('tool_choice');
  });

  it('say who keeps the history, who is asked for a title, how a key is checked and the default model', () => {
    const h = dialectOf('hermes');
    const o = dialectOf('openai');
    expect([h.keepsHistory, h.asksForTitle, h.keyCheckByCompletion, h.defaultModel]).toEqual([true, false, false, 'hermes-agent']);
    expect([o.keepsHistory, o.asksForTitle, o.keyCheckByCompletion, o.defaultModel]).toEqual([false, true, true, '']);
  });

  it('guess an unset kind from the port: Hermes on 8642, OpenAI anywhere else and for an unusable address', () => {
    expect(guessKind('http://127.0.0.1:8642')).toBe('hermes');
    expect(guessKind('http://127.0.0.1:11434/v1')).toBe('openai');
    expect(guessKind('http://127.0.0.1')).toBe('openai');
    expect(guessKind('not a url')).toBe('openai');
  });
});
