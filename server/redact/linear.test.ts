// Redaction must stay linear: a hostile log line or response of 1 MiB must not hold the event loop for seconds.
// The fuzz test (redact.fuzz.test.ts) judges time, which a loaded machine blurs; this one counts work instead:
// the characters String.prototype.indexOf reads while redact() runs. A rule that searches "from here to the end
// of the text" once per occurrence (cutsIntoMask did, for every assignment) reads about n²/period characters;
// linear code reads a few per character of input.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearRedactCache, redact } from './index.js';

/** Large enough that quadratic work (n²/7 ≈ 6·10⁸ reads) towers over linear work, small enough to stay quick. */
const TEXT_CHARS = 1 << 16;
/**
 * indexOf reads allowed per character of input, over every rule. The linear rules read each character a few times
 * (one literal search per vendor prefix family, the `&` and `+` scans, …); the quadratic one read thousands.
 */
const READS_PER_CHAR_MAX = 64;

function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.floor(length / unit.length));
}

/** Characters indexOf read while `run` ran: from its start index to the match's end, or to the end of the text. */
function indexOfReads(run: () => void): number {
  const original = String.prototype.indexOf;
  let reads = 0;
  vi.spyOn(String.prototype, 'indexOf').mockImplementation(function (this: string, search: string, from?: number) {
    const start = Math.max(0, Math.min(Math.trunc(from ?? 0) || 0, this.length));
    const found = original.call(this, search, from);
    reads += (found === -1 ? this.length : found + String(search).length) - start;
    return found;
  });
  try {
    run();
  } finally {
    vi.restoreAllMocks();
  }
  return reads;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('redact: work grows linearly with the text', () => {
  // The four inputs that took 9 to 16 times their quarter's time (issue 25): an assignment at every 7th or 8th
  // character whose value runs far on, with no `...` anywhere. Next to each, what redact() gives (the same before
  // and after the fix): every `"…"` between two names is a value (A4), or one value runs to the end and is masked
  // once, from its original text (redaction.md, "Mask").
  const HOSTILE: Array<[string, (repeats: number) => string]> = [
    ['TOKEN="\\', (k) => 'TOKEN="' + '***'.repeat(k - 1) + '"\\'],
    ['TOKEN="', (k) => 'TOKEN="' + '***'.repeat(k - 1) + '"'],
    ['TOKEN=x', () => 'TOKEN=xTOKEN...EN=x'],
    ['a_key=$', () => 'a_key=$a_key...ey=$'],
  ];

  for (const [unit, expected] of HOSTILE) {
    it(`reads each character a bounded number of times: ${JSON.stringify(unit)} repeated`, () => {
      const text = repeatTo(unit, TEXT_CHARS);
      clearRedactCache();
      let output = '';
      const reads = indexOfReads(() => {
        output = redact(text);
      });
      expect(output).toBe(expected(text.length / unit.length));
      expect(reads / text.length, `indexOf read ${reads} characters for ${text.length}`).toBeLessThan(READS_PER_CHAR_MAX);
    });
  }

  // The fuzz test's other hand-picked worst cases, and masks in a run (cutsIntoMask's slow path): no rule may
  // search the rest of the text once per occurrence.
  const OTHER_UNITS = [
    '=', "a_token='a_token=\"", 'sk-', 'AKIA', '-----BEGIN ', 'Authorization: Bearer', 'Authorization:', 'x-api-key:',
    'postgres://u:p', 'https://a', 'https://a:b@', '12345678:', '+1', 'eyJ', 'a\u200b', 'a=b&', '"password": "',
    "'token': b'", 'password: ', 'AccountKey=', '[REDACTED PRIVATE KEY]', 'TOKEN=abcdef...wxyz', 'x...',
  ];
  it('reads each character a bounded number of times on the other hostile runs', () => {
    for (const unit of OTHER_UNITS) {
      const text = repeatTo(unit, TEXT_CHARS);
      clearRedactCache();
      const reads = indexOfReads(() => redact(text));
      expect(reads / text.length, `${JSON.stringify(unit)} repeated: indexOf read ${reads} characters for ${text.length}`).toBeLessThan(READS_PER_CHAR_MAX);
    }
  });

  it('counts what a quadratic search reads (the measure itself works)', () => {
    const text = repeatTo('TOKEN=x', TEXT_CHARS);
    const reads = indexOfReads(() => {
      // What cutsIntoMask did: from every `=`, search the rest of the text for an ellipsis that is not there.
      for (let eq = text.indexOf('='); eq !== -1; eq = text.indexOf('=', eq + 1)) text.indexOf('...', eq);
    });
    expect(reads / text.length).toBeGreaterThan(10 * READS_PER_CHAR_MAX);
  });
});
