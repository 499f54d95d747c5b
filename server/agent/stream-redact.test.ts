import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redact, SHORT_MASK } from '../redact/index.js';
import { anyText, FRAGMENTS, planted, separator } from '../testing/redact-arbitraries.js';
import { finalWord, MAX_HELD_CHARS, StreamRedactor } from './stream-redact.js';

// STREAM_REDACT_RUNS raises the number of cases for a longer hunt (the default keeps the suite fast).
const RUNS = Number(process.env.STREAM_REDACT_RUNS) || 300;

/** Cuts `text` into pieces of the given sizes (cycled); a size list of [1] gives one character per piece. */
function cut(text: string, sizes: readonly number[]): string[] {
  const pieces: string[] = [];
  for (let at = 0, i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length]!;
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

/**
 * Streams `pieces` and checks the contract on the way: after every push, everything sent so far is a prefix of
 * redact(whole text); after flush it is all of it. Returns what was sent after each push.
 */
function streamChecked(pieces: string[]): string[] {
  const whole = redact(pieces.join(''));
  const r = new StreamRedactor();
  let sent = '';
  const after: string[] = [];
  for (const piece of pieces) {
    sent += r.push(piece);
    if (!whole.startsWith(sent)) throw new Error(`sent ${JSON.stringify(sent)} is not a prefix of ${JSON.stringify(whole)}`);
    after.push(sent);
  }
  sent += r.flush();
  expect(sent).toBe(whole);
  return after;
}

const sizes = fc.oneof(fc.constant([1]), fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 20 }));
// Multi-word constructs: a credential-like name, an operator, a value of a few words (quoted or not, closed or
// not), then what may follow; at the start of a line or not. These are what a word-by-word stream could leak.
const NAMES = ['PASSWORD', 'GITHUB_TOKEN', 'password', 'api_key', 'apiKey', 'db.password', '"password"', "'token'", '\\"api_key\\"', 'Authorization', 'x-api-key', 'AccountKey', 'secret', 'AUTHOR', 'keyboard', 'token'];
const OPERATORS = ['=', ' = ', ': ', ':', '  :  '];
const QUOTES = ['', '', '"', "'", '`', "b'", '\\"'];
const VALUE_WORDS = ['correct', 'horse', 'Bearer', 'Basic', 'hunter2', 'abc', 'abcdefghijklmnopqrstu', '#', '$HOME', '***', 'a&b', 'x,', '}'];
const TAILS = ['', ' more', '\n', ' # note', ',', '"}', ' ', '\nnext: line'];
const LEADS = ['', '  ', '12| ', 'export ', 'see ', '{'];
const construct = fc
  .tuple(
    fc.constantFrom(...LEADS),
    fc.constantFrom(...NAMES),
    fc.constantFrom(...OPERATORS),
    fc.constantFrom(...QUOTES),
    fc.array(fc.constantFrom(...VALUE_WORDS), { minLength: 0, maxLength: 3 }),
    fc.boolean(),
    fc.constantFrom(...TAILS),
  )
  .map(([lead, name, op, quote, words, closed, tail]) => {
    const close = quote === "b'" ? "'" : quote;
    return lead + name + op + quote + words.join(' ') + (closed ? close : '') + tail;
  });
// Plain words and what may follow them to make a token that covers them (JWT after `e`, Discord after `M…`,
// Zhipu after hex, a vendor prefix after its start, AWS after `A`).
const GLUE = [' ', ' ', '\n', 'x', '\x1f', '&', 'code=', '\u2028', 'the', 'yJhbGciOiJIUzI1NiJ9', 'Monday', 'M', 'a'.repeat(23), '.abcdef.', 'b'.repeat(27), 'cafe', '0123456789abcdef'.repeat(2), 'hvs', 'do', 'p_v1_', 'A', 'KIAIOSFODNN7EXAMPLE', "don't", 'vly-', 'abcdefghij'];
const edgeText = fc.array(fc.constantFrom(...FRAGMENTS, ...GLUE), { maxLength: 40 }).map((p) => p.join(''));

describe('StreamRedactor: every prefix sent is a prefix of redact(whole)', () => {
  it('for planted secrets of every rule family, in any surroundings and any chunking (property)', () => {
    fc.assert(
      fc.property(anyText, separator, planted, separator, anyText, sizes, (before, s1, p, s2, after, cuts) => {
        const text = before + s1 + p.text + s2 + after;
        streamChecked(cut(text, cuts));
      }),
      { numRuns: RUNS },
    );
  });

  it('for several secrets and edge fragments glued together (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(planted, edgeText, fc.constantFrom(' ', '\n', '', '"', ': ', '=')), { minLength: 1, maxLength: 5 }), sizes, (items, cuts) => {
        const text = items.map(([p, filler, glue]) => p.text + glue + filler).join(' ');
        streamChecked(cut(text, cuts));
      }),
      { numRuns: RUNS },
    );
  });

  it('for credential names followed by values of several words, closed or not (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(construct, fc.constantFrom(' ', '\n', '')), { minLength: 1, maxLength: 4 }), sizes, (items, cuts) => {
        streamChecked(cut(items.flat().join(''), cuts));
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it('for the rules that read past a word, one character at a time', () => {
    const cases = [
      'set PASSWORD="correct horse battery" then go',
      "PASSWORD='correct horse battery'",
      'PASSWORD=`correct horse` and more',
      'GITHUB_TOKEN = hunter2x and more',
      'password: plainword\nnext line',
      'password: plainword # a comment',
      'password: plain word here',
      '  api_key: "quoted value"\n',
      'Authorization: Basic dXNlcjpwYXNz and more',
      'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789',
      'Authorization: see docs',
      'Authorization: Bearer\nnext',
      '"Authorization": "Token abc123def456 x"',
      'x-api-key:   secretvalue123 tail',
      '{"password": "correct horse battery", "user": "bob"}',
      '{\\"api_key\\": \\"a b c d\\"}',
      "{'db_password': b'two words'}",
      'postgres://app:hunter2hunter2@db.internal:5432/x',
      'https://bob:hunter2@example.com/ and https://abcdef1234567890@host/x',
      'password=hunter2&user=bob&token=abc',
      'password=hunter2&user=bob and prose',
      'code=abc\x1fdef&state=1', // U+001F is whitespace to the rules but not to B9's form line
      'call +4915123456789 now, or +49151234567890123',
      'ghp_abc\u200bdef1234567890XYZ after',
      `lead -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n/ygWyF8PbnGy0AHB7MhgHcTz6sE2\n-----END RSA PRIVATE KEY----- tail TOKEN=y\nafter`,
      'TOKEN=abc-----BEGIN EC PRIVATE KEY-----\nbody\n',
      'password: abc -----BEGIN PRIVATE KEY-----',
      'PASSWORD="[REDACTED PRIVATE KEY]" and [link](url)',
      'AccountKey=abc123def456;EndpointSuffix=core',
      'spring.datasource.password=s3cr3t and more',
      'export DB_PASSWORD=s3cr3t\r\nnext',
      'M' + 'a'.repeat(23) + '.abcdef.' + 'b'.repeat(27) + ' bot',
      'bot123456789:' + 'a'.repeat(35) + ' x',
    ];
    for (const text of cases) {
      streamChecked(cut(text, [1]));
      streamChecked(cut(text, [3, 1, 7]));
      streamChecked([text]);
    }
  });

  it('never shows a word of a quoted or YAML value before the whole value is masked', () => {
    const sent = streamChecked(cut('PASSWORD="correct horse" ok\npassword: plainword\n', [1]));
    for (const s of sent) expect(s).not.toMatch(/correct|horse|plainword/);
    expect(sent.at(-1)).toBe('PASSWORD="***" ok\npassword: ***\n');
  });
});

describe('StreamRedactor: latency', () => {
  const WORDS = ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog', "don't", '"quoted"', 'Lisbon', 'été', '[link](x)', 'a-b', 'x_y', '42', '3.14'];
  const SEPARATORS = [' ', ' ', ', ', '. ', ': ', '; ', '\n', ' (', ') '];
  const prose = fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 40 }).map((parts) => parts.flat().join(''));

  it('sends prose without credential names up to its last word at every moment (property)', () => {
    fc.assert(
      fc.property(prose, sizes, (text, cuts) => {
        const pieces = cut(text, cuts);
        const sent = streamChecked(pieces);
        let received = '';
        pieces.forEach((piece, i) => {
          received += piece;
          // Held at most: the word still arriving and the blanks before it (on the current line).
          const held = /[^\S\n]*\S*$/u.exec(received)![0];
          expect(sent[i]!.length).toBeGreaterThanOrEqual(received.length - held.length);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('sends a plain word at once, and holds one a continuation could turn into a credential', () => {
    const r = new StreamRedactor();
    expect(r.push('Hello')).toBe('Hello');
    expect(r.push(' there')).toBe(''); // `e` may begin a JWT: `thereyJhbGciOi…`
    expect(r.push(' AK')).toBe(' there');
    expect(r.push('IAIOSFODNN7EXAMPLE')).toBe('');
    expect(r.push(' ok')).toBe(' AKIAIO...MPLE ok');
    expect(r.push(', fine.\n')).toBe(', fine.\n');
  });

  it('tells plain words from the starts of credentials', () => {
    const plain = ['Hello', 'work', 'trains.', 'Alfama.', "o'clock", 'été', 'Lisbon,', 'upon', 'Monday,', 'cafe,', 'ok)'];
    const held = ['the', 'hey', 'a', 'cafe', 'A', 'S', 'G', 'Monday', 'sk', 'ghp', 'github', 'hvs.', 'xoxb', 'do', 'AK', 'x1', 'key=', '"pw', 'gh\u200b', "don't", 'Monday.', 'cafe.'];
    expect(plain.filter((w) => !finalWord(w))).toEqual([]);
    expect(held.filter(finalWord)).toEqual([]);
  });
});

describe('StreamRedactor: the hold cap', () => {
  it('masks a line whose open construct outgrows MAX_HELD_CHARS and goes on exactly with the next line', () => {
    const blob = 'QUJD'.repeat(MAX_HELD_CHARS);
    const r = new StreamRedactor();
    let sent = '';
    for (const piece of cut(`data: ${blob} tail\nnext TOKEN=abc\n`, [97])) sent += r.push(piece);
    sent += r.flush();
    expect(sent).toBe(`data:${SHORT_MASK}\nnext TOKEN=***\n`);
  });

  it('still cuts out a private-key block that begins on a masked line', () => {
    const r = new StreamRedactor();
    const text = `x ${'a'.repeat(MAX_HELD_CHARS + 10)} -----BEGIN RSA PRIVATE KEY-----\nsecretbody\n-----END RSA PRIVATE KEY----- after\n`;
    let sent = '';
    for (const piece of cut(text, [5])) sent += r.push(piece);
    sent += r.flush();
    expect(sent).toBe(`x${SHORT_MASK}[REDACTED PRIVATE KEY] after\n`);
  });
});
