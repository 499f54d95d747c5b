// A stored reply's activity as the thread reads it: the tools from `tool_activity`, their folded summary, and the
// usage line, which says nothing when the agent reported no usage.
import { describe, expect, it } from 'vitest';
import type { Message } from './api.js';
import { activitySummary, replyActivity, storedUsageLine } from './reply-activity.js';

const row = (extra: Partial<Message>): Message => ({ role: 'assistant', content: 'ok', ...extra });

describe('replyActivity', () => {
  it('reads the stored tools as cards: finished is done, failed and stopped as stored, durations kept', () => {
    const a = replyActivity(
      row({
        tool_activity: [
          { name: 'read_file', preview: 'notes.md', status: 'finished', duration_seconds: 0.25 },
          { name: 'terminal', preview: 'make', status: 'failed', duration_seconds: 0.125 },
          { name: 'terminal', preview: 'sleep 60', status: 'stopped' },
        ],
        usage: { input_tokens: 12, output_tokens: 40, duration_seconds: 2, ttft_ms: 300 },
      }),
    );
    expect(a.tools.map((t) => [t.name, t.preview, t.status, t.duration])).toEqual([
      ['read_file', 'notes.md', 'done', 0.25],
      ['terminal', 'make', 'failed', 0.125],
      ['terminal', 'sleep 60', 'stopped', undefined],
    ]);
    expect(activitySummary(a)).toBe('3 tools · 0.4 s · 1 failed');
    expect(a.usage?.output_tokens).toBe(40);
  });

  it('reads a row without activity, or with fields of another shape, as nothing', () => {
    expect(replyActivity(row({}))).toEqual({ tools: [], omitted: 0, usage: undefined });
    const odd = { tool_activity: 'x', tool_activity_omitted: -1, usage: { input_tokens: '1' } } as unknown as Partial<Message>;
    expect(replyActivity(row(odd))).toEqual({ tools: [], omitted: 0, usage: undefined });
    const junk = { tool_activity: [null, { status: 'exploded' }] } as unknown as Partial<Message>;
    expect(replyActivity(row(junk)).tools).toEqual([{ tid: 'stored-1', name: 'tool', preview: '', status: 'stopped', duration: undefined }]);
  });

  it('counts the tools not kept in the summary, one tool in the singular', () => {
    expect(activitySummary({ tools: [], omitted: 1 })).toBe('1 tool');
    expect(activitySummary({ tools: [{ tid: 'a', name: 'x', preview: '', status: 'done', duration: 1 }], omitted: 5 })).toBe('6 tools · 1.0 s');
  });
});

describe('storedUsageLine', () => {
  it('says the stored usage with its throughput, as the live turn did; nothing when none was stored', () => {
    expect(storedUsageLine({ input_tokens: 12, output_tokens: 40, duration_seconds: 2, ttft_ms: 300 })).toBe('12 in · 40 out · 2.0 s · first token 300 ms · 20.0 tok/s');
    expect(storedUsageLine(undefined)).toBe('');
  });
});
