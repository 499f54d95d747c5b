// The one rule of a conversation's caps (caps.ts): where each one starts refusing, and that the refusal is the 400
// the handlers answer with its sentence.
import { describe, expect, it } from 'vitest';
import { ValueError } from '../core/errors.js';
import { CapReached, capRefusal, MAX_ATTACHMENTS_PER_SESSION, MAX_MESSAGES_PER_SESSION, MAX_VERSIONS_PER_MESSAGE, passesCap, refuseOverCap } from './caps.js';
import { TOO_MANY_VERSIONS } from './versions.js';

describe('conversation caps', () => {
  it('take up to the cap and refuse one more', () => {
    for (const [kind, max] of [['messages', MAX_MESSAGES_PER_SESSION], ['attachments', MAX_ATTACHMENTS_PER_SESSION], ['versions', MAX_VERSIONS_PER_MESSAGE]] as const) {
      expect(passesCap(kind, max - 1)).toBe(false);
      expect(passesCap(kind, max)).toBe(true);
      expect(passesCap(kind, max - 3, 3)).toBe(false);
      expect(passesCap(kind, max - 3, 4)).toBe(true);
      expect(() => refuseOverCap(kind, max - 1)).not.toThrow();
      const err = (() => {
        try {
          refuseOverCap(kind, max);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(CapReached);
      expect(err).toBeInstanceOf(ValueError);
      expect((err as Error).message).toBe(capRefusal(kind));
    }
  });

  it('say which cap in a sentence', () => {
    expect(capRefusal('attachments')).toBe('This conversation already has 10,000 attachments, the most Satchel keeps; start a new conversation for more files');
    expect(capRefusal('messages')).toBe('This conversation is full (Satchel keeps at most 10,000 messages in one); start a new conversation to go on');
    expect(TOO_MANY_VERSIONS).toBe(capRefusal('versions'));
  });
});
