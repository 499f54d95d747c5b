import { describe, expect, it } from 'vitest';
import {
  ARMED_COPY_NOTICE,
  ARMED_SEND_NOTICE,
  CANCELLED_COPY_NOTICE,
  clipboardRefusal,
  CANCELLED_SEND_NOTICE,
  COPIED_NOTICE,
  PTT_CLOSE_DELAY_MS,
  pttStep,
  pttThen,
  SILENCE_COPY_NOTICE,
  SILENCE_SEND_NOTICE,
  type PttEvent,
  type PttState,
  type PttStep,
  type PttThen,
} from './ptt-flow.js';

/** Runs events from the start, returning every step (the last one's state is where it ended). */
function run(then: PttThen, ...events: PttEvent[]): PttStep[] {
  let state: PttState = { then, phase: 'off' };
  return events.map((e) => {
    const step = pttStep(state, e);
    state = step.state;
    return step;
  });
}
const spoken = (): PttEvent[] => [{ type: 'press' }, { type: 'recording' }, { type: 'press' }, { type: 'transcribing' }];

describe('pttThen', () => {
  it('reads the destination of a dictation page only; anything unknown is the field', () => {
    expect(pttThen('?dictate=1&then=clipboard')).toBe('clipboard');
    expect(pttThen('?dictate=1&then=message')).toBe('message');
    expect(pttThen('?dictate=1')).toBe('capture');
    expect(pttThen('?dictate=1&then=email')).toBe('capture');
    expect(pttThen('?then=message')).toBe('capture');
    expect(pttThen('')).toBe('capture');
  });
});

describe('clipboardRefusal', () => {
  it('names why the clipboard said no', () => {
    expect(clipboardRefusal(new DOMException('Write permission denied.', 'NotAllowedError'))).toBe('the system refused it');
    expect(clipboardRefusal(new TypeError("Cannot read properties of undefined (reading 'writeText')"))).toBe('the clipboard is not available on this page');
    expect(clipboardRefusal(new Error('Document is not focused.'))).toBe('Document is not focused.');
    expect(clipboardRefusal('x')).toBe('unknown error');
  });
});

describe('pttStep', () => {
  it('clipboard: recording → transcribing → copying → copied, then the window closes after the named delay', () => {
    const steps = run('clipboard', ...spoken(), { type: 'transcript', text: 'buy oat milk' }, { type: 'copied' });
    expect(steps.map((s) => s.state.phase)).toEqual(['armed', 'recording', 'recording', 'transcribing', 'delivering', 'copied']);
    expect(steps[0]!.effects).toEqual([{ kind: 'notice', level: 'info', text: ARMED_COPY_NOTICE }]);
    expect(steps[4]!.effects).toEqual([{ kind: 'copy', text: 'buy oat milk' }]);
    expect(steps[5]!.effects).toEqual([
      { kind: 'notice', level: 'info', text: COPIED_NOTICE },
      { kind: 'close', afterMs: PTT_CLOSE_DELAY_MS },
    ]);
  });

  it('message: the transcript is sent; "Sent to <title>", or to a new conversation, then it closes', () => {
    const steps = run('message', ...spoken(), { type: 'transcript', text: 'What is due today?' }, { type: 'sent', title: 'Work' });
    expect(steps[0]!.effects).toEqual([{ kind: 'notice', level: 'info', text: ARMED_SEND_NOTICE }]);
    expect(steps[4]!.effects).toEqual([{ kind: 'send', text: 'What is due today?' }]);
    expect(steps[5]!.state.phase).toBe('sent');
    expect(steps[5]!.effects).toEqual([
      { kind: 'notice', level: 'info', text: 'Sent to “Work”.' },
      { kind: 'close', afterMs: PTT_CLOSE_DELAY_MS },
    ]);
    const fresh = run('message', ...spoken(), { type: 'transcript', text: 'hi' }, { type: 'sent', title: null });
    expect(fresh.at(-1)!.effects[0]).toEqual({ kind: 'notice', level: 'info', text: 'Sent to a new conversation.' });
  });

  it('a refused clipboard or a failed send keeps the words in the field and says so; the window stays', () => {
    const copy = run('clipboard', ...spoken(), { type: 'transcript', text: 'call Ana' }, { type: 'copy-refused', text: 'call Ana', reason: 'permission denied' });
    expect(copy.at(-1)!.state.phase).toBe('failed');
    expect(copy.at(-1)!.effects).toEqual([
      { kind: 'insert', text: 'call Ana' },
      { kind: 'notice', level: 'error', text: 'Could not copy to the clipboard (permission denied). The text is in the field: copy it from there.' },
    ]);
    const send = run('message', ...spoken(), { type: 'transcript', text: 'hello' }, { type: 'send-failed', text: 'hello', reason: 'No agent configured' });
    expect(send.at(-1)!.effects).toEqual([
      { kind: 'insert', text: 'hello' },
      { kind: 'notice', level: 'error', text: 'Not sent: No agent configured. The text is in the field: send it from there.' },
    ]);
    expect(send.at(-1)!.effects.some((e) => e.kind === 'close')).toBe(false);
  });

  it('silence and Esc copy and send nothing, and say so', () => {
    expect(run('clipboard', ...spoken(), { type: 'empty' }).at(-1)).toEqual({
      state: { then: 'clipboard', phase: 'empty' },
      effects: [{ kind: 'notice', level: 'info', text: SILENCE_COPY_NOTICE }],
    });
    expect(run('message', ...spoken(), { type: 'empty' }).at(-1)!.effects).toEqual([{ kind: 'notice', level: 'info', text: SILENCE_SEND_NOTICE }]);
    const esc = run('message', { type: 'press' }, { type: 'recording' }, { type: 'cancelled' });
    expect(esc.at(-1)).toEqual({ state: { then: 'message', phase: 'cancelled' }, effects: [{ kind: 'notice', level: 'info', text: CANCELLED_SEND_NOTICE }] });
    // Esc while the microphone is still opening, or while transcribing.
    expect(run('clipboard', { type: 'press' }, { type: 'cancelled' }).at(-1)!.effects).toEqual([{ kind: 'notice', level: 'info', text: CANCELLED_COPY_NOTICE }]);
    expect(run('clipboard', ...spoken(), { type: 'cancelled' }).at(-1)!.state.phase).toBe('cancelled');
    // A transcript that arrives after the cancel (it cannot, but if it did) goes to the field, not the clipboard.
    expect(run('clipboard', { type: 'press' }, { type: 'cancelled' }, { type: 'transcript', text: 'late' }).at(-1)!.effects).toEqual([{ kind: 'insert', text: 'late' }]);
  });

  it('into quick capture (the default), and the microphone button on any page, insert into the field as before', () => {
    const steps = run('capture', ...spoken(), { type: 'transcript', text: 'note' });
    expect(steps.every((s) => s.state.phase === 'off')).toBe(true);
    expect(steps.at(-1)!.effects).toEqual([{ kind: 'insert', text: 'note' }]);
    // On a clipboard page, after a result, the button's own dictation (no press) goes to the field.
    const after = run('clipboard', ...spoken(), { type: 'empty' }, { type: 'recording' }, { type: 'transcript', text: 'typed by voice' });
    expect(after.at(-1)!.effects).toEqual([{ kind: 'insert', text: 'typed by voice' }]);
  });

  it('a new press after a result starts again; a press while delivering changes nothing', () => {
    const again = run('clipboard', ...spoken(), { type: 'empty' }, { type: 'press' });
    expect(again.at(-1)!.state.phase).toBe('armed');
    const busy = run('message', ...spoken(), { type: 'transcript', text: 'x' }, { type: 'press' });
    expect(busy.at(-1)).toEqual({ state: { then: 'message', phase: 'delivering' }, effects: [] });
    expect(run('message', { type: 'press' }, { type: 'voice-failed' }).at(-1)!.state.phase).toBe('failed');
  });
});
