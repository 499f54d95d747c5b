// Property tests for the redactor: embedded secrets never survive, a second pass changes nothing, nothing
// throws, and hostile inputs stay linear.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redact } from './redact.js';

const RUNS = 400;
const LETTERS_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
// Deliberately generous: the shared 2-core machine can be slow; linear code finishes 1 MiB in milliseconds.
const HOSTILE_DEADLINE_MS = 2000;

function chars(alphabet: string, minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });
}

/** A random credential body: long enough that random filler cannot contain it by chance. */
const body = chars(LETTERS_DIGITS, 12, 48);

interface Planted {
  text: string;
  /** What must not appear in the output. */
  secret: string;
}

const vendorSecret: fc.Arbitrary<Planted> = fc
  .tuple(fc.constantFrom('sk-', 'sk-proj-', 'ghp_', 'github_pat_', 'xoxb-', 'hf_', 'npm_', 'pypi-', 'glpat-', 'SG.', 'gsk_'), body)
  .map(([prefix, tail]) => ({ text: prefix + tail, secret: prefix + tail }));

const googleSecret: fc.Arbitrary<Planted> = chars(LETTERS_DIGITS, 30, 40).map((tail) => ({
  text: `AIza${tail}`,
  secret: `AIza${tail}`,
}));

// The AWS shape is found even glued to other base64 characters.
const awsSecret: fc.Arbitrary<Planted> = fc
  .tuple(fc.constantFrom('AKIA', 'ASIA'), chars(UPPER_DIGITS, 16, 16), chars(LETTERS_DIGITS + '+/', 0, 8))
  .map(([prefix, tail, glue]) => ({ text: glue + prefix + tail, secret: prefix + tail }));

const assignmentSecret: fc.Arbitrary<Planted> = fc
  .tuple(
    fc.constantFrom('API_KEY', 'openai_api_key', 'APIKEY', 'GH_TOKEN', 'secret', 'DB_PASSWORD', 'passwd', 'CREDENTIAL', 'AUTHOR', 'x-auth'),
    fc.constantFrom('', '"', "'"),
    body,
  )
  .map(([name, quote, value]) => ({ text: `${name}=${quote}${value}${quote}`, secret: value }));

const headerSecret: fc.Arbitrary<Planted> = fc
  .tuple(fc.constantFrom('Authorization', 'authorization', 'Proxy-Authorization'), fc.constantFrom('Bearer', 'Bot', 'bearer'), body)
  .map(([header, scheme, token]) => ({ text: `${header}: ${scheme} ${token}`, secret: token }));

const pemSecret: fc.Arbitrary<Planted> = fc
  .tuple(fc.constantFrom('RSA ', 'EC ', 'OPENSSH ', ''), fc.array(chars(LETTERS_DIGITS + '+/', 12, 64), { minLength: 1, maxLength: 6 }))
  .map(([kind, lines]) => ({
    text: `-----BEGIN ${kind}PRIVATE KEY-----\n${lines.join('\n')}\n-----END ${kind}PRIVATE KEY-----`,
    secret: lines.join('\n'),
  }));

const HEX = '0123456789abcdef';
const DIGITS = '0123456789';
const BASE64URL = LETTERS_DIGITS + '_-';

// One arbitrary per remaining rule family of redaction.md (B1–B11, C), each with a body random filler cannot hold.
const moreVendorSecret: fc.Arbitrary<Planted> = fc
  .tuple(
    fc.constantFrom('ntn_', 'glrt-', 'GR1348941', 'fal_', 'fc-', 'bb_live_', 'am_', 'sk_', 'exa_', 'syt_', 'retaindb_', 'hsk-', 'mem0_', 'brv_', 'tvly-', 'pplx-', 'dop_v1_'),
    body,
  )
  .map(([prefix, tail]) => ({ text: prefix + tail, secret: prefix + tail }));
const longVendorSecret: fc.Arbitrary<Planted> = fc
  .tuple(fc.constantFrom('xai-', 'fw-', 'fw_', 'fpk_'), chars(LETTERS_DIGITS, 30, 40))
  .map(([prefix, tail]) => ({ text: prefix + tail, secret: prefix + tail }));
const fernetSecret = chars(BASE64URL, 20, 40).map((tail) => ({ text: `gAAAA${tail}`, secret: `gAAAA${tail}` }));
const jwtSecret = fc
  .tuple(chars(BASE64URL, 12, 30), chars(BASE64URL, 12, 30), chars(LETTERS_DIGITS + '+/', 0, 6))
  .map(([head, payload, glue]) => ({ text: `${glue}eyJ${head}.${payload}`, secret: `eyJ${head}.${payload}` }));
const telegramSecret = fc
  .tuple(chars(DIGITS, 8, 10), chars(BASE64URL, 30, 40))
  .map(([id, secret]) => ({ text: `bot${id}:${secret}`, secret }));
const discordSecret = fc
  .tuple(fc.constantFrom('M', 'N'), chars(LETTERS_DIGITS, 23, 25), chars(BASE64URL, 6, 6), chars(BASE64URL, 27, 40))
  .map(([m, a, b, c]) => ({ text: `${m}${a}.${b}.${c}`, secret: `${a}.${b}.${c}` }));
const zhipuSecret = fc
  .tuple(chars(HEX, 32, 32), chars(LETTERS_DIGITS, 16, 30))
  .map(([id, secret]) => ({ text: `${id}.${secret}`, secret: `.${secret}` }));
const twilioSecret = chars(HEX, 32, 32).map((hex) => ({ text: `SK${hex}`, secret: hex }));
const urlSecret = fc
  .tuple(fc.constantFrom('postgres', 'postgresql', 'mysql', 'mongodb+srv', 'redis', 'amqp', 'https', 'ftp'), body)
  .map(([scheme, password]) => ({ text: `${scheme}://app:${password}@db.internal:5432/x`, secret: password }));
const fieldSecret = fc
  .tuple(
    fc.constantFrom('{"password": "%"}', '{"api_key": "%"}', '{"apiKey":"%"}', "{'OPENAI_API_KEY': '%'}", "{'db_password': b'%'}", '{\"token\": \"%\"}'),
    body,
  )
  .map(([shape, value]) => ({ text: shape.replace('%', value), secret: value }));
const lineSecret = fc
  .tuple(fc.constantFrom('\npassword: %\n', '\n  api_key: %\n', 'spring.datasource.password=%', 'aws_secret_access_key = %', 'export DB_PASSWORD=%', 'x-api-key: %', 'Authorization: Basic %', 'AccountKey=%;', 'PASSWORD=`%`', 'password=%&user=bob'), body)
  .map(([shape, value]) => ({ text: shape.replace('%', value), secret: value }));
const phoneSecret = fc
  .tuple(fc.constantFrom('1', '4', '9'), chars(DIGITS, 9, 12))
  .map(([first, rest]) => ({ text: `+${first}${rest}`, secret: `+${first}${rest}` }));
const slackSecret = body.map((secret) => ({ text: `https://hooks.slack.com/services/T0123/B0456/${secret}`, secret }));
// B11: a vendor token with a zero-width or control character inside.
const splitSecret = fc
  .tuple(fc.constantFrom('ghp_', 'hf_', 'sk-', 'glpat-'), body, fc.constantFrom('\u200b', '\u200d', '\ufeff', '\u2060', '\u0000'), fc.nat())
  .map(([prefix, tail, invisible, at]) => {
    const cut = 1 + (at % (tail.length - 1));
    return { text: prefix + tail.slice(0, cut) + invisible + tail.slice(cut), secret: tail.slice(0, cut) + invisible + tail.slice(cut) };
  });

const planted = fc.oneof(
  vendorSecret, googleSecret, awsSecret, assignmentSecret, headerSecret, pemSecret, moreVendorSecret, longVendorSecret,
  fernetSecret, jwtSecret, telegramSecret, discordSecret, zhipuSecret, twilioSecret, urlSecret, fieldSecret, lineSecret,
  phoneSecret, slackSecret, splitSecret,
);

// Fragments that exercise the rules' edges when glued together at random.
const FRAGMENTS = [
  '=', '==', '=>', '"', "'", '\\', ' ', '\t', '\n', '\r\n', '.', '...', '***', ':', '-', '_', 'TOKEN', 'auth',
  'PASSWORD', 'api_key', 'Authorization', 'Authorization: Bearer ', 'Bot ', 'sk-', 'ghp_', 'SG.', 'AKIA', 'AIza',
  'ABCDEFGHIJKLMNOP', 'abcdefghij', '0123456789', '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----',
  '-----BEGIN ', 'PRIVATE KEY-----', '[REDACTED PRIVATE KEY]', 'é', '😀', '𝐀', '\uD800', 'word', '/path/to',
];
const fragmentText = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 60 }).map((parts) => parts.join(''));
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ maxLength: 200 }), fragmentText);
const separator = fc.constantFrom(' ', '\n', '\t', ' \n ');

describe('redact: properties', () => {
  it('never lets a planted secret through, whatever surrounds it', () => {
    fc.assert(
      fc.property(anyText, separator, planted, separator, anyText, (before, sep1, { text, secret }, sep2, after) => {
        const out = redact(before + sep1 + text + sep2 + after);
        expect(out.includes(secret)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it('never lets several planted secrets through in one text', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(planted, anyText), { minLength: 2, maxLength: 6 }), (items) => {
        const out = redact(items.map(([p, filler]) => `${p.text}\n${filler}\n`).join(''));
        for (const [p] of items) expect(out.includes(p.secret)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it('is idempotent: a second pass changes nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(anyText, planted.map((p) => p.text)), { maxLength: 6 }), (parts) => {
        const once = redact(parts.join(' '));
        expect(redact(once)).toBe(once);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('never throws and always returns a string no longer than needed', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const out = redact(text);
        expect(typeof out).toBe('string');
        // Masks only shorten (except a short value becoming "***"), so growth is bounded by 2 per character.
        expect(out.length).toBeLessThanOrEqual(text.length * 2 + 3);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('leaves random prose and code without secrets unchanged', () => {
    const WORDS = ['the', 'session', 'upload', 'folder', 'keyboard', 'tokenizer', 'author', 'value', 'x', 'count', 'max_tokens', 'README.md', 'v1.2.3', '42', '/usr/lib', 'e3b0c44298fc1c14', '123e4567-e89b-12d3-a456-426614174000', 'sk-learn', 'https://example.com/a?b=c'];
    const SEPARATORS = [' ', ', ', '. ', '\n', ': ', ' = ', ' - ', '(', ') ', '; ', ' == ', '\t'];
    const prose = fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 60 }).map((parts) => parts.flat().join(''));
    fc.assert(
      fc.property(prose, (text) => {
        expect(redact(text)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('leaves text without any trigger character untouched', () => {
    const harmless = chars("abcdefghijklmnopqrstuvwxyz ,;!?()'\"\n\té", 0, 300);
    fc.assert(
      fc.property(harmless, (text) => {
        expect(redact(text)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('stays linear on hostile repetitions (1 MiB each, under a deadline)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 4 }), (unit) => {
        const piece = unit.join('');
        const text = piece.repeat(Math.ceil((1 << 20) / piece.length));
        const started = performance.now();
        redact(text);
        expect(performance.now() - started).toBeLessThan(HOSTILE_DEADLINE_MS);
      }),
      { numRuns: 40 },
    );
  });

  it('stays linear on hand-picked worst cases', () => {
    const MiB = 1 << 20;
    const cases = [
      'a'.repeat(MiB) + '=x',
      'TOKEN'.repeat(MiB / 5) + '=x',
      '='.repeat(MiB),
      'TOKEN="\\'.repeat(MiB / 8),
      'TOKEN="'.repeat(MiB / 7),
      "a_token='a_token=\"".repeat(MiB / 18),
      'sk-'.repeat(MiB / 3),
      'AKIA'.repeat(MiB / 4),
      'AKI' + 'A'.repeat(MiB),
      '-----BEGIN '.repeat(MiB / 11),
      '-----BEGIN ' + 'A'.repeat(MiB),
      '-----BEGIN PRIVATE KEY-----' + '-----END '.repeat(MiB / 9),
      'Authorization: Bearer'.repeat(MiB / 21),
      'Authorization:' + ' '.repeat(MiB),
      'x-'.repeat(MiB / 2) + 'token=1',
      'TOKEN=x'.repeat(MiB / 7),
      'a_key=$'.repeat(MiB / 7),
      'Authorization:'.repeat(MiB / 14),
      'x-api-key:'.repeat(MiB / 10),
      'postgres://u:p'.repeat(MiB / 14),
      'https://a'.repeat(MiB / 9),
      '12345678:'.repeat(MiB / 9),
      '+1'.repeat(MiB / 2),
      'eyJ'.repeat(MiB / 3),
      'a\u200b'.repeat(MiB / 2),
      '\u200b'.repeat(MiB),
      'a=b&'.repeat(MiB / 4),
      '"password": "'.repeat(MiB / 13),
      "'token': b'".repeat(MiB / 11),
      'password: '.repeat(MiB / 10),
      'AccountKey='.repeat(MiB / 11),
      'M'.repeat(MiB) + '.',
      '0'.repeat(MiB) + '.abc',
      '[REDACTED PRIVATE KEY]'.repeat(MiB / 22),
    ];
    for (const text of cases) {
      const started = performance.now();
      const out = redact(text);
      expect(typeof out).toBe('string');
      expect(performance.now() - started).toBeLessThan(HOSTILE_DEADLINE_MS);
    }
  });
});
