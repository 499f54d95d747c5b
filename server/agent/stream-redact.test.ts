import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redact } from '../redact.js';
import { mayBeCredential, StreamRedactor } from './stream-redact.js';

const SECRETS = [
  'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
  'ghp_1234567890abcdefghijABCDEFGHIJ123456',
  'AKIAIOSFODNN7EXAMPLE',
  'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
];

function streamed(pieces: string[]): string {
  const r = new StreamRedactor();
  return pieces.map((p) => r.push(p)).join('') + r.flush();
}

/** The credential's middle (what its mask hides) must not show up in the output, not even 8 characters of it. */
function leaks(output: string, secret: string): boolean {
  const hidden = secret.slice(6, -4);
  for (let i = 0; i + 8 <= hidden.length; i++) if (output.includes(hidden.slice(i, i + 8))) return true;
  return false;
}

describe('StreamRedactor', () => {
  it('passes prose through unchanged, piece by piece', () => {
    const pieces = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy', ' dog.\n', '```js\n', 'const a = 1;\n```'];
    expect(streamed(pieces)).toBe(pieces.join(''));
  });

  it.each(SECRETS)('masks %s split across tokens', (secret) => {
    const text = `Here is the key: ${secret} — keep it safe.`;
    const cut = text.indexOf(secret) + 9;
    const out = streamed([text.slice(0, cut), text.slice(cut, cut + 7), text.slice(cut + 7)]);
    expect(leaks(out, secret)).toBe(false);
    expect(out.endsWith(' — keep it safe.')).toBe(true);
  });

  it('masks a Bearer token whose scheme and value come in different pieces', () => {
    const out = streamed(['curl -H "Authorization: Bearer ', 'abcdefghijklmnopqrstuvwxyz0123456789', '" https://x']);
    expect(out).not.toContain('abcdefghijklmnopqrstuvwxyz');
  });

  it('sends an ordinary word at once, and holds one that could be a credential until it ends', () => {
    const r = new StreamRedactor();
    expect(r.push('Hello')).toBe('Hello');
    expect(r.push(' there')).toBe(' there');
    expect(r.push(' AK')).toBe(' ');
    expect(r.push('IAIOSFODNN7EXAMPLE')).toBe('');
    expect(r.push(' ok')).toBe('AKIAIO...MPLE ok');
  });

  it('does not hold prose words ending in punctuation, and holds words that could begin a credential', () => {
    expect(['Alfama.', 'well,', 'trains!', 'Lisbon', 'été'].filter(mayBeCredential)).toEqual([]);
    expect(['AK', 'sk-', 'ghp_', 'eyJhb', 'x1', 'a'.repeat(20), '"abc', 'key='].every(mayBeCredential)).toBe(true);
  });

  it('gives what redacting the whole text gives when nothing was split', () => {
    const text = `one ${SECRETS[0]} two`;
    expect(streamed([text])).toBe(redact(text));
  });

  it('never lets a credential through, however the reply is cut into tokens (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SECRETS),
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 40 }),
        (secret, before, after, sizes) => {
          const text = `${before} ${secret} ${after}`;
          const pieces: string[] = [];
          let at = 0;
          for (let i = 0; at < text.length; i++) {
            const size = sizes[i % sizes.length]!;
            pieces.push(text.slice(at, at + size));
            at += size;
          }
          expect(leaks(streamed(pieces), secret)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});
