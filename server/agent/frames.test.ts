// The frame format, the resume point a client names, and the bound on what a turn keeps for replay.
import { describe, expect, it } from 'vitest';
import { streamRedacted } from '../projections/index.js';
import { FrameLog, formatFrame, REPLAY_MAX_BYTES, resumePoint } from './frames.js';
import { redact, StreamRedactor } from '../redact/index.js';

const ID = 'a'.repeat(32);

describe('formatFrame', () => {
  it('writes id, event and one line of JSON; a live piece comes from the stream redactor', () => {
    const shown = new StreamRedactor();
    const piece = streamRedacted(shown.push('line one\nline two token=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n'));
    const text = formatFrame(ID, 3, 'token', { text: piece });
    const lines = text.split('\n');
    expect(lines.slice(0, 2)).toEqual([`id: ${ID}:3`, 'event: token']);
    expect(lines[2]).toMatch(/^data: \{"text":"line one\\nline two token=/);
    expect(lines.slice(3)).toEqual(['', '']);
    expect(text).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    // @ts-expect-error a raw string is not a live piece: only the stream redactor makes one.
    formatFrame(ID, 4, 'token', { text: 'raw' });
  });

  it('sends live pieces as the stream redactor made them: together they are the whole reply redacted once', () => {
    // Whole, `wordSG.…` has no token boundary before `SG.` and is not a key; the piece `SG.…` alone would be one,
    // so masking each piece again (as before) showed a mask live that the stored reply does not have.
    const shown = new StreamRedactor();
    const reply = '\\AIza\twordSG.ABCDEFGHIJKLMNOP"';
    const pieces = ['\\AIza', '\tword', 'SG.ABCDEFGHIJKLMNOP"'].map((p) => streamRedacted(shown.push(p))).concat(streamRedacted(shown.flush()));
    const live = pieces.filter(Boolean).map((piece, i) => JSON.parse(formatFrame(ID, i + 1, 'token', { text: piece }).split('\n')[2]!.slice('data: '.length)).text);
    expect(live.length).toBeGreaterThan(1);
    expect(live.join('')).toBe(redact(reply));
  });

  it('redacts what the agent wrote in other frames (a tool preview)', () => {
    const text = formatFrame(ID, 5, 'tool', { event_type: 'tool.started', name: 'shell', preview: 'export TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789', args: {}, tid: 't1' });
    expect(text).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });
});

describe('resumePoint', () => {
  it('reads after_seq, after_event_id or Last-Event-ID, first one given wins', () => {
    expect(resumePoint(ID, [null, null, undefined])).toBe(0);
    expect(resumePoint(ID, ['5', null, `${ID}:9`])).toBe(5);
    expect(resumePoint(ID, [null, `${ID}:7`, undefined])).toBe(7);
    expect(resumePoint(ID, [null, null, `${ID}:9`])).toBe(9);
    // Another stream's id, or nonsense, says nothing.
    expect(resumePoint(ID, [null, `${'b'.repeat(32)}:7`, 'x'])).toBe(0);
    expect(resumePoint(ID, ['-1', '1.5', '2'])).toBe(2);
  });
});

describe('FrameLog', () => {
  it('replays after a seq, and drops the oldest frames past its byte bound, never the newest', () => {
    const log = new FrameLog(100);
    for (let seq = 1; seq <= 10; seq++) log.push({ seq, text: 'x'.repeat(30) });
    expect(log.lastSeq).toBe(10);
    expect(log.after(0).map((f) => f.seq)).toEqual([8, 9, 10]);
    expect(log.after(8).map((f) => f.seq)).toEqual([9, 10]);
    expect(log.after(10)).toEqual([]);
    log.push({ seq: 11, text: 'y'.repeat(500) });
    expect(log.after(0).map((f) => f.seq)).toEqual([11]);
  });

  it('never drops the frames of the outcome, whatever the reply before them', () => {
    const log = new FrameLog(100);
    for (let seq = 1; seq <= 5; seq++) log.push({ seq, text: 'x'.repeat(30) });
    log.push({ seq: 6, text: 'd'.repeat(80), outcome: true });
    log.push({ seq: 7, text: 't'.repeat(40), outcome: true });
    log.push({ seq: 8, text: 'e'.repeat(20), outcome: true });
    // The streamed frames still hold the bound among themselves; the outcome comes on top of it.
    expect(log.after(0).map((f) => f.seq)).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it('holds a long reply whole within the default bound', () => {
    const log = new FrameLog();
    const frame = formatFrame(ID, 1, 'token', { text: streamRedacted(' word') });
    const count = Math.floor(REPLAY_MAX_BYTES / frame.length);
    for (let seq = 1; seq <= count; seq++) log.push({ seq, text: frame });
    expect(log.size).toBe(count);
    expect(count).toBeGreaterThan(20_000);
  });
});
