// maskedSpans is redact() with its masks located: the same text, each mask's place and what it hides.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { maskedSpans, redact } from './index.js';
import { forgetSecrets, KNOWN_SECRET_MASK, rememberSecret } from './known.js';
import { anyText, planted, separator } from '../testing/redact-arbitraries.js';

const RUNS = 300;

afterEach(() => forgetSecrets());

/** Each original is found in the written text, in order, after the one before it. */
function inOrder(written: string, masks: readonly { original: string }[]): boolean {
  let pos = 0;
  for (const m of masks) {
    const at = written.indexOf(m.original, pos);
    if (at < 0) return false;
    pos = at + m.original.length;
  }
  return true;
}

describe('maskedSpans', () => {
  it('locates each mask of an .env example and what it hides', () => {
    const text = 'Example:\n```\nPOSTGRES_PASSWORD=hunter2\nGITHUB_TOKEN=ghp_Q7abcdefghijklmnopqrstuvwxyzVbNm\n```';
    const { text: shown, masks } = maskedSpans(text);
    expect(shown).toBe(redact(text));
    expect(masks.map((m) => [shown.slice(m.start, m.end), m.original])).toEqual([
      ['***', 'hunter2'],
      ['ghp_Q7...VbNm', 'ghp_Q7abcdefghijklmnopqrstuvwxyzVbNm'],
    ]);
  });

  it('covers a quoted value, not its quotes or operator', () => {
    const { text, masks } = maskedSpans('PASSWORD = "correct horse battery" and API_KEY=`hunter22`');
    expect(masks.map((m) => [text.slice(m.start, m.end), m.original])).toEqual([
      ['correc...tery', 'correct horse battery'],
      ['***', 'hunter22'],
    ]);
  });

  it('has no spans for a text without secrets', () => {
    expect(maskedSpans('Loading... done, ***bold*** and [REDACTED PRIVATE KEY] typed by hand')).toEqual({
      text: 'Loading... done, ***bold*** and [REDACTED PRIVATE KEY] typed by hand',
      masks: [],
    });
  });

  it("never hands out Satchel's own secrets: they stay masked inside an original", () => {
    const key = 'q7Zr2LmXw9Pk4TfB8vNcQ1';
    rememberSecret(key);
    const { text, masks } = maskedSpans(`my key ${key} and PASSWORD=hunter2`);
    expect(text).toBe(redact(`my key ${key} and PASSWORD=hunter2`));
    expect(text).toContain(KNOWN_SECRET_MASK);
    expect(masks.map((m) => m.original)).toEqual(['hunter2']);
    expect(JSON.stringify(masks)).not.toContain(key);
  });

  it('is redact() character for character, each original taken from the text written, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(anyText, separator, planted), { maxLength: 5 }), anyText, (items, tail) => {
        const written = items.map(([before, sep, p]) => before + sep + p.text).join('\n') + tail;
        const { text, masks } = maskedSpans(written);
        expect(text).toBe(redact(written));
        expect(inOrder(written, masks)).toBe(true);
        for (const m of masks) expect(m.original.length).toBeGreaterThan(0);
        for (let i = 1; i < masks.length; i++) expect(masks[i]!.start).toBeGreaterThanOrEqual(masks[i - 1]!.end);
      }),
      { numRuns: RUNS },
    );
  });
});
