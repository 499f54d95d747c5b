// Layer 3's switch and the OpenAI dialect's tool-call bounds, driven with whole events (no socket).
import { describe, expect, it } from 'vitest';
import { StreamParser } from './parser.js';
import { MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_CALLS } from './tool-calls.js';

describe('StreamParser: events to dialects', () => {
  it('reads each line of a data block that is no JSON as a whole (a server that forgot the blank lines)', () => {
    const parser = new StreamParser();
    const chunk = (text: string) => JSON.stringify({ choices: [{ delta: { content: text } }] });
    expect([...parser.event({ event: '', data: `${chunk('a')}\n${chunk('b')}` })]).toEqual([
      { kind: 'token', text: 'a' },
      { kind: 'token', text: 'b' },
    ]);
  });
  it('sends hermes.tool.progress to the Hermes decoder, ignores other named events, stops at [DONE]', () => {
    const parser = new StreamParser(undefined, () => 0);
    const progress = JSON.stringify({ tool: 'ls', status: 'running', toolCallId: 't1', label: 'ls' });
    expect([...parser.event({ event: 'hermes.tool.progress', data: progress })]).toEqual([{ kind: 'tool', name: 'ls', preview: 'ls', args: {}, tid: 't1' }]);
    expect([...parser.event({ event: 'other.dialect', data: JSON.stringify({ choices: [{ delta: { content: 'x' } }] }) })]).toEqual([]);
    expect([...parser.event({ event: '', data: '[DONE]' })]).toEqual([]);
    expect(parser.done).toBe(true);
    expect([...parser.event({ event: '', data: JSON.stringify({ choices: [{ delta: { content: 'late' } }] }) })]).toEqual([]);
  });
});

describe('the bound on tool-call arguments', () => {
  it('keeps what fits across calls, then reads nothing more and ends with `cut` instead of the usage', () => {
    // Ids and names count too: a (1) f (1) {"x":1} (7), b (1) g (1), then 3 bytes for the second arguments.
    const parser = new StreamParser(undefined, () => 0, 14);
    const line = (delta: object) => [...parser.event({ event: '', data: JSON.stringify({ choices: [{ index: 0, delta }] }) })];
    line({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x":1}' } }] });
    line({ tool_calls: [{ index: 1, id: 'b', function: { name: 'g', arguments: '{"é":"€€"}' } }] });
    expect(parser.cut).toBe(true);
    // Once cut, nothing is read: not content, not more arguments.
    expect(line({ content: 'more' })).toEqual([]);
    expect([...parser.finish()]).toEqual([
      { kind: 'tool_calls', calls: [{ id: 'a', function: { name: 'f', arguments: '{"x":1}' } }, { id: 'b', function: { name: 'g', arguments: '{"' } }] },
      { kind: 'cut', what: 'tool_arguments', limitBytes: 14 },
    ]);
  });

  it('counts a tool name sent in pieces against the same bound (a name flood is cut like an argument flood)', () => {
    const parser = new StreamParser(undefined, () => 0, 12);
    const line = (delta: object) => [...parser.event({ event: '', data: JSON.stringify({ choices: [{ index: 0, delta }] }) })];
    line({ tool_calls: [{ index: 0, id: 'a', function: { name: 'read_' } }] });
    for (let i = 0; i < 1000; i++) line({ tool_calls: [{ index: 0, function: { name: 'file' } }] });
    expect(parser.cut).toBe(true);
    expect([...parser.finish()]).toEqual([
      { kind: 'tool_calls', calls: [{ id: 'a', function: { name: 'read_filefi', arguments: '' } }] },
      { kind: 'cut', what: 'tool_arguments', limitBytes: 12 },
    ]);
  });

  it('an id sent again replaces the one before it in the count', () => {
    const parser = new StreamParser(undefined, () => 0, 8);
    const line = (delta: object) => [...parser.event({ event: '', data: JSON.stringify({ choices: [{ index: 0, delta }] }) })];
    for (let i = 0; i < 100; i++) line({ tool_calls: [{ index: 0, id: 'call_1' }] });
    expect(parser.cut).toBe(false);
  });

  it(`keeps at most MAX_TOOL_CALLS (${MAX_TOOL_CALLS}) calls, then cuts the reply`, () => {
    const parser = new StreamParser();
    const line = (delta: object) => [...parser.event({ event: '', data: JSON.stringify({ choices: [{ index: 0, delta }] }) })];
    for (let i = 0; i < MAX_TOOL_CALLS + 50; i++) line({ tool_calls: [{ index: i, id: `c${i}`, function: { name: 'f', arguments: '{}' } }] });
    expect(parser.cut).toBe(true);
    const [calls, cut] = [...parser.finish()];
    expect(calls).toMatchObject({ kind: 'tool_calls' });
    expect((calls as { calls: unknown[] }).calls).toHaveLength(MAX_TOOL_CALLS);
    expect(cut).toEqual({ kind: 'cut', what: 'tool_arguments', limitBytes: MAX_TOOL_ARGUMENT_BYTES });
  });
});
