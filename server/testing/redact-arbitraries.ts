// fast-check arbitraries for the redactor's property tests: one planted secret per rule family of
// docs/spec-notes.md ("Redaction rule set"), and filler text that exercises the rules' edges. Shared by
// redact.fuzz.test.ts and agent/stream-redact.test.ts (the streamed redactor must give what the whole-text one
// gives).
import fc from 'fast-check';

export const LETTERS_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export function chars(alphabet: string, minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });
}

/** A random credential body: long enough that random filler cannot contain it by chance. */
export const body = chars(LETTERS_DIGITS, 12, 48);

export interface Planted {
  text: string;
  /** What must not appear in the output. */
  secret: string;
}

const vendorSecret: fc.Arbitrary<Planted> = fc
  .tuple(fc.constantFrom('sk-', 'sk-proj-', 'ghp_', 'github_pat_', 'xoxb-', 'hf_', 'npm_', 'pypi-', 'glpat-', 'SG.', 'gsk_'), body)
  .map(([prefix, tail]) => ({ text: prefix + tail, secret: prefix + tail }));

// A vendor key glued after `_` or `-` (issue 21: `tool_sk-proj-…`, `x-ghp_…`); its tail holds a letter and a digit,
// as a glued key's must (redact/vendors.ts vendorStart).
const gluedVendorSecret: fc.Arbitrary<Planted> = fc
  .tuple(fc.constantFrom('tool_', 'x-', 'my_', 'env.', 'a_b-'), fc.constantFrom('sk-', 'sk-proj-', 'ghp_', 'github_pat_', 'hf_', 'glpat-', 'xoxb-'), body, fc.constantFrom('a7', 'x9', 'Q0'))
  .map(([glue, prefix, tail, random]) => ({ text: glue + prefix + tail + random, secret: prefix + tail + random }));

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

export const planted = fc.oneof(
  vendorSecret, gluedVendorSecret, googleSecret, awsSecret, assignmentSecret, headerSecret, pemSecret, moreVendorSecret, longVendorSecret,
  fernetSecret, jwtSecret, telegramSecret, discordSecret, zhipuSecret, twilioSecret, urlSecret, fieldSecret, lineSecret,
  phoneSecret, slackSecret, splitSecret,
);

// Fragments that exercise the rules' edges when glued together at random.
export const FRAGMENTS = [
  '=', '==', '=>', '"', "'", '\\', ' ', '\t', '\n', '\r\n', '.', '...', '***', ':', '-', '_', 'TOKEN', 'auth',
  'PASSWORD', 'api_key', 'Authorization', 'Authorization: Bearer ', 'Bot ', 'sk-', 'ghp_', 'SG.', 'AKIA', 'AIza',
  'ABCDEFGHIJKLMNOP', 'abcdefghij', '0123456789', '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----',
  '-----BEGIN ', 'PRIVATE KEY-----', '[REDACTED PRIVATE KEY]', 'é', '😀', '𝐀', '\uD800', 'word', '/path/to',
];
export const fragmentText = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 60 }).map((parts) => parts.join(''));
export const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ maxLength: 200 }), fragmentText);
export const separator = fc.constantFrom(' ', '\n', '\t', ' \n ');
