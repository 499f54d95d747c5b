// Layer 2: lines → events, as the SSE grammar says.
import { describe, expect, it } from 'vitest';
import { AgentError } from '../types.js';
import { SseDecoder, type SseEvent } from './sse.js';

function decode(lines: string[], decoder = new SseDecoder()): SseEvent[] {
  const events = lines.map((line) => decoder.line(line)).filter((e): e is SseEvent => e !== undefined);
  const last = decoder.end();
  return last ? [...events, last] : events;
}

describe('SseDecoder', () => {
  it('joins multi-line data with \\n, keeps the event name and id, ignores comments and unknown fields', () => {
    expect(decode([': keepalive', 'event: hermes.tool.progress', 'id: 7', 'data: {"a":', 'retry: 10', 'data:1}', ''])).toEqual([
      { event: 'hermes.tool.progress', data: '{"a":\n1}', id: '7' },
    ]);
  });
  it('dispatches nothing for a blank line without data, and forgets the name at each blank line', () => {
    expect(decode(['event: x', '', 'data: plain', ''])).toEqual([{ event: '', data: 'plain' }]);
  });
  it('dispatches an event the stream ended without its blank line', () => {
    expect(decode(['data: [DONE]'])).toEqual([{ event: '', data: '[DONE]' }]);
  });
  it('refuses data lines past the bound of one event instead of growing without end', () => {
    const decoder = new SseDecoder(10);
    expect(decoder.line('data: 12345')).toBeUndefined();
    expect(() => decoder.line('data: 67890')).toThrow(AgentError);
  });
});
