// Layer 4: the accumulator — what is kept, what goes out live (redacted), and where the reply is cut.
import { describe, expect, it } from 'vitest';
import { MAX_REPLY_BYTES, Reply, REPLY_CUT_MARKER, toolArgumentsCutMarker } from './reply.js';

function reply() {
  const frames: [string, unknown][] = [];
  return { frames, reply: new Reply((event, data) => frames.push([event, data])) };
}

describe('Reply', () => {
  it('collects text, reasoning, tool calls and usage, and sends live pieces only redacted', () => {
    const { frames, reply: r } = reply();
    for (const text of ['key ', 'AKIAIOSFO', 'DNN7EXAMPLE', ' end']) r.add({ kind: 'token', text });
    r.add({ kind: 'reasoning', text: 'why' });
    r.add({ kind: 'tool_calls', calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }] });
    r.add({ kind: 'usage', inputTokens: 3, outputTokens: 4 });
    r.flush();
    expect(r.content).toBe('key AKIAIOSFODNN7EXAMPLE end');
    expect(r.reasoning).toBe('why');
    expect(r.usage).toEqual({ inputTokens: 3, outputTokens: 4 });
    expect(r.row().tool_calls).toEqual([{ id: 'c', function: { name: 'f', arguments: '{}' } }]);
    const live = frames.filter(([e]) => e === 'token').map(([, d]) => (d as { text: string }).text).join('');
    expect(live).not.toContain('SFODNN7E');
    expect(r.ttftMs).not.toBeNull();
  });
  it('stores the tools it ran and the usage reported; no usage reported is unknown, not 0', () => {
    const { reply: r } = reply();
    r.add({ kind: 'tool', name: 'read_file', preview: 'notes.md', args: { path: 'notes.md' }, tid: 't1' });
    r.add({ kind: 'tool_complete', name: 'read_file', preview: 'notes.md', args: {}, tid: 't1', duration: 0.3, isError: false });
    r.flush();
    expect(r.row().tool_activity).toEqual([{ name: 'read_file', preview: 'notes.md', status: 'finished', duration_seconds: 0.3 }]);
    expect(r.row()).not.toHaveProperty('usage');
    expect(r.chatUsage()).toMatchObject({ input_tokens: 0, output_tokens: 0, reported: false });
    // Only tools came before the stop: still a partial row, so they are kept.
    expect(r.partialRows()).toHaveLength(1);
    r.add({ kind: 'usage', inputTokens: 0, outputTokens: 7 });
    expect(r.row().usage).toMatchObject({ input_tokens: 0, output_tokens: 7 });
    expect(r.chatUsage().reported).toBe(true);
  });
  it(`cuts the text at MAX_REPLY_BYTES (${MAX_REPLY_BYTES}) with the marker, and asks to read no further`, () => {
    const { reply: r } = reply();
    const piece = 'é'.repeat(1024 * 1024);
    // Two pieces of 2 MiB fill the bound exactly; the third is cut to nothing.
    expect(r.add({ kind: 'token', text: piece })).toBe(true);
    expect(r.add({ kind: 'token', text: piece })).toBe(true);
    expect(r.add({ kind: 'token', text: piece })).toBe(false);
    expect(Buffer.byteLength(r.content, 'utf8')).toBe(MAX_REPLY_BYTES + Buffer.byteLength(REPLY_CUT_MARKER, 'utf8'));
    expect(r.content.endsWith(REPLY_CUT_MARKER)).toBe(true);
    expect(r.cut).toBe(true);
  });
  it('ends a reply whose tool-call arguments were cut with their marker', () => {
    const { reply: r } = reply();
    expect(r.add({ kind: 'cut', what: 'tool_arguments', limitBytes: 1024 * 1024 })).toBe(false);
    expect(r.content).toBe(toolArgumentsCutMarker(1024 * 1024));
    expect(r.partialRows()).toHaveLength(1);
  });
});
