import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { KnownSecretStream, ReplyRedactor } from '../agent/reply-redact.js';
import { redact } from './index.js';
import { forgetSecrets, formsOf, KNOWN_SECRET_MASK, KNOWN_SECRET_MIN_CHARS, maskKnown, rememberSecret, SecretMatcher, SEPARATORS_BETWEEN } from './known.js';

const KEY = 'q7Zr2LmXw9Pk4TfB8vNc';
const M = KNOWN_SECRET_MASK;

afterEach(() => forgetSecrets());

describe('SecretMatcher: the forms of a key', () => {
  const m = new SecretMatcher([KEY]);

  it('masks the key, alone or glued to other characters', () => {
    expect(m.mask(`key ${KEY} end`)).toBe(`key ${M} end`);
    expect(m.mask(`model-${KEY}`)).toBe(`model-${M}`);
    expect(m.mask(`tool_${KEY}.json`)).toBe(`tool_${M}.json`);
    expect(m.mask(`${KEY}${KEY}`)).toBe(`${M}${M}`);
  });

  it('masks each half on its own', () => {
    expect(m.mask(`first ${KEY.slice(0, 10)} then ${KEY.slice(10)} end`)).toBe(`first ${M} then ${M} end`);
  });

  it(`masks the key with up to ${SEPARATORS_BETWEEN} separators between its characters, not more`, () => {
    for (const sep of [' ', '-', '.', '_', '\u200b', ' - ', '\u2060']) {
      const spaced = [...KEY].join(sep);
      expect(m.mask(`<${spaced}>`), JSON.stringify(sep)).toBe(sep.length <= SEPARATORS_BETWEEN ? `<${M}>` : `<${spaced}>`.replace(KEY.slice(0, 10), M));
    }
  });

  it('masks the key inside base64 and base64url text, at every alignment', () => {
    for (const wrapped of [KEY, `u:${KEY}`, `us:${KEY}`, `{"key":"${KEY}"}`]) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = Buffer.from(wrapped).toString(encoding);
        const masked = m.mask(encoded);
        expect(masked, `${wrapped} ${encoding}`).toContain(M);
        // What is left around the mask cannot give back more than a few of the key's characters.
        const left = masked.split(M).map((part) => Buffer.from(part, 'base64').toString('latin1'));
        for (const part of left) expect(part.length < 6 || !KEY.includes(part.slice(-6))).toBe(true);
      }
    }
  });

  it("leaves ordinary text alone, including the key's own characters in other orders", () => {
    const prose = 'The quick brown fox q7 jumps over Zr2 the lazy dog; LmXw9 and Pk4TfB are not a key.';
    expect(m.mask(prose)).toBe(prose);
    expect(m.mask(KEY.slice(0, 9))).toBe(KEY.slice(0, 9));
  });

  it(`ignores values shorter than ${KNOWN_SECRET_MIN_CHARS} characters and splits only keys of 16 or more in halves`, () => {
    expect(new SecretMatcher(['short-key']).empty).toBe(true);
    expect(formsOf('abcdefghijkl').filter((f) => f.spaced).map((f) => f.chars)).toEqual(['abcdefghijkl']);
    expect(formsOf(KEY).filter((f) => f.spaced).map((f) => f.chars)).toEqual([KEY, KEY.slice(0, 10), KEY.slice(10)]);
  });
});

describe('the known secrets in redact()', () => {
  it('redact() masks a key once it is remembered, even a text it had memoized before', () => {
    const text = `echo ${KEY}`;
    expect(redact(text)).toBe(text);
    rememberSecret(KEY);
    expect(redact(text)).toBe(`echo ${M}`);
    expect(maskKnown(text)).toBe(`echo ${M}`);
    forgetSecrets();
    expect(redact(text)).toBe(text);
  });

  it('masks the known value before the rules run, so a credential rule never sees part of it', () => {
    rememberSecret(KEY);
    expect(redact(`api_key=${KEY}`)).toBe(`api_key=${M}`);
    expect(redact(`Authorization: Bearer ${KEY}`)).toBe(`Authorization: Bearer ${M}`);
  });
});

/** Text cut at the given places. */
function cutAt(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const c of at) {
    out.push(text.slice(from, c));
    from = c;
  }
  out.push(text.slice(from));
  return out;
}

const fragment = fc.oneof(
  fc.constantFrom(KEY, KEY.slice(0, 10), KEY.slice(10), [...KEY].join(' '), [...KEY].join('-'), Buffer.from(`u:${KEY}`).toString('base64'), `model-${KEY}`),
  fc.constantFrom(' ', '\n', 'the ', 'q7Z', KEY.slice(0, 15), 'ghp_' + 'a'.repeat(36), 'api_key=', 'q', '-'),
  fc.string({ maxLength: 8 }),
);

/**
 * For random texts cut at random places: every prefix `stream` sends is a prefix of `whole(text)`, and all of it
 * after flush.
 */
function sendsPrefixes(makeStream: () => { push(piece: string): string; flush(): string }, whole: (text: string) => string, numRuns: number): void {
  fc.assert(
    fc.property(fc.array(fragment, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 }), (parts, cuts) => {
      const text = parts.join('');
      const expected = whole(text);
      const stream = makeStream();
      let out = '';
      for (const piece of cutAt(text, cuts)) {
        out += stream.push(piece);
        expect(expected.startsWith(out)).toBe(true);
      }
      out += stream.flush();
      expect(out).toBe(expected);
    }),
    { numRuns },
  );
}

describe('KnownSecretStream and ReplyRedactor: the same as the whole text, however it is cut', () => {
  it('what goes out is always a prefix of maskKnown(whole), all of it after flush', () => {
    sendsPrefixes(() => new KnownSecretStream(new SecretMatcher([KEY])), (text) => new SecretMatcher([KEY]).mask(text), 500);
  });

  it('the two stages together give redact(whole) with the key remembered', () => {
    rememberSecret(KEY);
    sendsPrefixes(() => new ReplyRedactor(), redact, 300);
  });

  it('holds at most what may still become the key: prose goes out at once', () => {
    const stream = new KnownSecretStream(new SecretMatcher([KEY]));
    expect(stream.push('plain words go out ')).toBe('plain words go out ');
    expect(stream.push('then q7Z')).toBe('then ');
    expect(stream.push('r2 is no key')).toBe('q7Zr2 is no key');
  });
});

describe('SecretMatcher: the start filter', () => {
  it('decides exactly what the NFA from every position decides (spaced forms, separators, halves, base64, streams)', () => {
    const secret = 'q7Zr-Xk2 pL9wM4tB';
    const filtered = new SecretMatcher([secret, 'bench-token-0123456789abcdef']);
    const reference = new SecretMatcher([secret, 'bench-token-0123456789abcdef']);
    // The reference starts the NFA at every position whose character starts a form.
    (reference as unknown as { cannotStart: () => boolean }).cannotStart = () => false;
    const pieces = fc.constantFrom(...secret, ...'bench-token-0123456789abcdef', ' ', '  ', '-', '_', '.', '\u200b', '\u00a0', '·', 'x', 'Q', '\n', secret.slice(0, 8), secret.slice(8), Buffer.from(secret).toString('base64'));
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(filtered.mask(text)).toBe(reference.mask(text));
        expect(filtered.scan(text, false)).toEqual(reference.scan(text, false));
      }),
      { numRuns: 3000 },
    );
  });
});
