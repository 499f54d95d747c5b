// redactYielding is redact() in slices: the same text out, whatever the slice size, for texts with planted
// secrets, private-key blocks across slice ends, a known key spaced across a line break, and long lines.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redact, rememberSecret, REDACT_SLICE_CHARS, redactYielding } from './index.js';
import { anyText, planted, separator } from '../testing/redact-arbitraries.js';

const KEY = 'Qm7vRt2XkP9wLz4NcY8bHs';
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx7v\nQm9pZ2h0IGJlIGEga2V5\n-----END RSA PRIVATE KEY-----\n';

describe('redactYielding', () => {
  it('gives exactly redact(text) for any text cut into small slices', async () => {
    rememberSecret(KEY);
    const line = fc.tuple(anyText, separator, planted, separator, anyText).map(([a, s1, p, s2, b]) => a + s1 + p.text + s2 + b);
    const block = fc.constantFrom(PEM, `${KEY.slice(0, 11)}\n${KEY.slice(11)}\n`, KEY.split('').join(' ') + '\n', '-----BEGIN PRIVATE KEY-----\nnever ends\n');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(line, block, fc.constant('\n')), { maxLength: 30 }), fc.integer({ min: 1, max: 64 }), async (parts, slice) => {
        const text = parts.join('');
        expect(await redactYielding(text, slice)).toBe(redact(text));
      }),
      { numRuns: 300 },
    );
  });

  it('lets the event loop run while it redacts a long text, and still masks a key in it', async () => {
    const line = 'INFO request path=/api/items user=alice took 12ms\n';
    const text = line.repeat(Math.ceil((4 * REDACT_SLICE_CHARS) / line.length)) + `api_key=${KEY}\n` + line.repeat(100);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const out = await redactYielding(text);
    clearInterval(ticking);
    expect(out).toBe(redact(text));
    expect(out).not.toContain(KEY);
    expect(turns).toBeGreaterThan(2);
  });
});
