import { beforeEach, describe, expect, it } from 'vitest';
import {
  clearRedactCache,
  isRedactCached,
  MEMO_MAX_CHARS,
  MEMO_MAX_ENTRIES,
  redact,
  redactCacheSize,
  redactDeep,
  VENDOR_MIN_TAIL,
} from './index.js';

const RSA_BLOCK = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n-----END RSA PRIVATE KEY-----';
const CERT_BLOCK = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----';

// [input, expected output]. Expected texts are written out by hand: 6 first characters + "..." + 4 last for
// tokens of 18+ characters, "***" below that.
const CASES: Array<[string, string]> = [
  // Vendor prefixes: at the minimum tail, just below it, and in context.
  ['sk-abcdefghij', '***'],
  ['sk-abcdefghi', 'sk-abcdefghi'],
  ['key sk-proj-abcdefghijklmnopqrstuvwxyz0123 end', 'key sk-pro...0123 end'],
  ['sk-ant-api03-abcdefghijklmnopqrstuvwxyz-_0123', 'sk-ant...0123'],
  ['(sk-abcdefghijklmnopqrstuvwxyz)', '(sk-abc...wxyz)'],
  ['task-abcdefghijklmnop', 'task-abcdefghijklmnop'],
  ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'ghp_ab...6789'],
  ['ghp_abcdefghi', 'ghp_abcdefghi'],
  ['ghp_abcdefghij', '***'],
  ['gho_abcdefghijklmnopqrstuvwxyz0123456789.', 'gho_ab...6789.'],
  ['github_pat_11ABCDEFG0_abcdefghijklmnopqrstuvwxyz', 'github...wxyz'],
  ['github_pat_abcdefghi', 'github_pat_abcdefghi'],
  ['xoxb-1234567890-abcdefghij', 'xoxb-1...ghij'],
  ['xoxp-123456789', 'xoxp-123456789'],
  ['xoxz-1234567890-abcdefghij', 'xoxz-1234567890-abcdefghij'],
  ['AIzaSyA1234567890abcdefghijklmnopqrstu', 'AIzaSy...rstu'],
  ['AIzaSyA1234567890abcdefghijklmnopq', 'AIzaSy...nopq'],
  ['AIza12345678901234567890123456789', 'AIza12345678901234567890123456789'],
  ['AKIAIOSFODNN7EXAMPLE', 'AKIAIO...MPLE'],
  ['ASIAIOSFODNN7EXAMPLE', 'ASIAIO...MPLE'],
  ['xyzAKIAIOSFODNN7EXAMPLE==', 'xyzAKIAIO...MPLE=='],
  ['AKIAIOSFODNN7EXAMPLEXYZ', 'AKIAIO...MPLEXYZ'],
  ['AKIAIOSFODNN7EXAMPL', 'AKIAIOSFODNN7EXAMPL'],
  ['AKIAiosfodnn7example', 'AKIAiosfodnn7example'],
  ['SG.abcdefghij', '***'],
  ['SG.abcdefghi', 'SG.abcdefghi'],
  ['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', 'SG.nge...s5cr'],
  ['See SG.abcdefghijklmnop. Next', 'See SG.abc...mnop. Next'],
  ['hf_abcdefghijklmnopqrstuvwxyz012345', 'hf_abc...2345'],
  ['npm_abcdefghijklmnopqrstuvwxyz0123456789', 'npm_ab...6789'],
  ['pypi-AgEIcHlwaS5vcmcCJGE0', 'pypi-A...JGE0'],
  ['glpat-abcdefghij1234567890', 'glpat-...7890'],
  ['sk_live_abcdefghij1234', 'sk_liv...1234'],
  ['npm_lifecycle_event', 'npm_lifecycle_event'],
  ['hf_hub_download', 'hf_hub_download'],
  ['keys: ghp_abcdefghij, hf_abcdefghij.', 'keys: ***, ***.'],

  // Authorization header values.
  ['Authorization: Bearer abc123', 'Authorization: Bearer ***'],
  ['authorization: bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig', 'authorization: bearer eyJhbG....sig'],
  ['Authorization: Bot MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs', 'Authorization: Bot MTk4Nj...kKWs'],
  ['-H "Authorization: Bearer abcdefghijklmnopqrstuvwxyz"', '-H "Authorization: Bearer abcdef...wxyz"'],
  ['{"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz"}', '{"Authorization": "Bearer abcdef...wxyz"}'],
  ['Proxy-Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Proxy-Authorization: Basic dXNlcj...ZA=='],
  ['AUTHORIZATION:\tBearer\tabcdef', 'AUTHORIZATION:\tBearer\t***'],
  ['HTTP_AUTHORIZATION=Bearer abcdef', 'HTTP_AUTHORIZATION=Bearer ***'],
  ['Authorization: Bearer', 'Authorization: Bearer'],
  ['Authorization: Bearer\nabcdef', 'Authorization: Bearer\nabcdef'],
  ['Authorization: Bearer abcdef...wxyz', 'Authorization: Bearer abcdef...wxyz'],
  ['Authorization: Bearer ***', 'Authorization: Bearer ***'],
  ['the authorization header carries a bearer token', 'the authorization header carries a bearer token'],
  ['Bearer abcdefghijklmnopqrstuvwxyz', 'Bearer abcdefghijklmnopqrstuvwxyz'],
  // Found by the fuzz test: the credential stops at the quote, and the quoted value still belongs to API_KEY.
  // Two rules cover overlapping spans (the Bearer token runs to the quote, the assignment's value is quoted):
  // the rest past the first mask is masked too, nothing of the value shows.
  ['Authorization: Bearer API_KEY="AAAAAAAAAAAA"', 'Authorization: Bearer ******"'],
  ['TOKEN=Authorization: Bearer abcdef', 'TOKEN=*** Bearer ***'],
  ['x=Authorization:Bearer abcdef', 'x=Authorization:Bearer ***'],

  // NAME=value assignments.
  ['OPENAI_API_KEY=abc123', 'OPENAI_API_KEY=***'],
  ['APIKEY=abcdefghijklmnopqrstuvwxyz', 'APIKEY=abcdef...wxyz'],
  ['GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'GITHUB_TOKEN=ghp_ab...6789'],
  ['AUTH=ghp_abcdefghij', 'AUTH=***'],
  ['AUTH=sk-abcdefghijklmnopqrst', 'AUTH=sk-abc...qrst'],
  ['AUTHOR=Jane', 'AUTHOR=***'],
  ['OAUTH_CLIENT=web', 'OAUTH_CLIENT=***'],
  ['DB_PASSWORD=hunter2', 'DB_PASSWORD=***'],
  ['MYSQL_PASSWD=x', 'MYSQL_PASSWD=***'],
  ['AZURE_CREDENTIAL=abc', 'AZURE_CREDENTIAL=***'],
  ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AWS_SECRET_ACCESS_KEY=wJalrX...EKEY'],
  ['GOOGLE_APPLICATION_CREDENTIALS=/home/user/keys/sa.json', 'GOOGLE_APPLICATION_CREDENTIALS=/home/...json'],
  ['password=hunter2', 'password=***'],
  ['export TOKEN="a b c"', 'export TOKEN="***"'],
  ["SECRET='abcdefghijklmnopqrstuvwxyz'", "SECRET='abcdef...wxyz'"],
  ['TOKEN=")"', 'TOKEN=")"'],
  ['KEY=")"', 'KEY=")"'],
  ['TOKEN=""', 'TOKEN=""'],
  ['TOKEN=', 'TOKEN='],
  ['TOKEN= abc', 'TOKEN=***'], // redaction.md A4: optional whitespace after `=`, dropped in the output
  ['token==null', 'token==null'],
  ['token=>x', 'token=>x'],
  ['SECRET=---', 'SECRET=---'],
  [
    'https://example.com/cb?code=1&access_token=abcdefghijklmnopqrstuvwxyz&x=1',
    'https://example.com/cb?code=1&access_token=abcdef...wxyz&x=1', // B3: the value stops at `&`
  ],
  ['NAME=value', 'NAME=value'],
  ['TOKEN=abc def', 'TOKEN=*** def'],
  ['TOKEN="unterminated value', 'TOKEN="*** value'],
  ['PASSWORD="p\\"q" next', 'PASSWORD="***" next'],
  ['env: {"cmd": "SECRET=abc"}', 'env: {"cmd": "SECRET=***"}'],
  ['api-key=abc', 'api-key=***'],
  ['x=1 y=2', 'x=1 y=2'],
  ['PASSWORD=пароль123', 'PASSWORD=***'],
  ['SECRET=абв', 'SECRET=***'],
  ['TOKEN=abcdef...wxyz', 'TOKEN=abcdef...wxyz'],
  ['TOKEN=***', 'TOKEN=***'],
  ['--password=swordfish', '--password=***'],
  ['KEYBOARD=qwerty', 'KEYBOARD=qwerty'],
  ['max_tokens=4096', 'max_tokens=4096'], // A4 names are upper case; B3 needs `token` as a word
  ['A=1\nTOKEN=two\nB=3', 'A=1\nTOKEN=***\nB=3'],
  ['PASSWORD="line one\nline two"', 'PASSWORD="*** one\nline two"'],

  // Private-key blocks.
  [RSA_BLOCK, '[REDACTED PRIVATE KEY]'],
  [
    'before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n-----END OPENSSH PRIVATE KEY-----\nafter',
    'before\n[REDACTED PRIVATE KEY]\nafter',
  ],
  ['x -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'x [REDACTED PRIVATE KEY]'],
  [`${RSA_BLOCK}\nmid ghp_abcdefghij\n${RSA_BLOCK}`, '[REDACTED PRIVATE KEY]\nmid ***\n[REDACTED PRIVATE KEY]'],
  ['TOKEN=-----BEGIN EC PRIVATE KEY-----\nabc\n-----END EC PRIVATE KEY----- ok', 'TOKEN=[REDACTED PRIVATE KEY] ok'],
  ['-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----', '[REDACTED PRIVATE KEY]'],
  ['-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n-----END ENCRYPTED PRIVATE KEY-----!', '[REDACTED PRIVATE KEY]!'],
  [`${CERT_BLOCK}\n${RSA_BLOCK}\ndone`, `${CERT_BLOCK}\n[REDACTED PRIVATE KEY]\ndone`],
  [CERT_BLOCK, CERT_BLOCK],
  ['-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----', '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----'],
  ['-----BEGIN private key-----', '-----BEGIN private key-----'],
  ['TOKEN=[REDACTED PRIVATE KEY] ok', 'TOKEN=[REDACTED PRIVATE KEY] ok'],
  ['Authorization: Bearer [REDACTED PRIVATE KEY]', 'Authorization: Bearer [REDACTED PRIVATE KEY]'],

  // Negatives that must come through untouched.
  ['commit 3f786850e387550fdab836ed7e6dc881de23001b', 'commit 3f786850e387550fdab836ed7e6dc881de23001b'],
  [
    'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  ],
  ['id 123e4567-e89b-12d3-a456-426614174000', 'id 123e4567-e89b-12d3-a456-426614174000'],
  [
    'Please pass the token to the secret service; the password is not here.',
    'Please pass the token to the secret service; the password is not here.',
  ],
  ['/home/user/projects/satchel/server/redact.ts', '/home/user/projects/satchel/server/redact.ts'],
  ['C:\\Users\\me\\AppData\\Roaming\\Satchel\\tokens.json', 'C:\\Users\\me\\AppData\\Roaming\\Satchel\\tokens.json'],
  [
    'https://github.com/nesquena/hermes-webui/blob/main/api/helpers.py#L10',
    'https://github.com/nesquena/hermes-webui/blob/main/api/helpers.py#L10',
  ],
  [
    'img data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg== end',
    'img data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg== end',
  ],
  ['The sk- prefix is used by OpenAI', 'The sk- prefix is used by OpenAI'],
  ['ghp_ tokens and xoxb- tokens', 'ghp_ tokens and xoxb- tokens'],
  ['risk-assessment-framework', 'risk-assessment-framework'],
  ['ASIAN markets and AKIA', 'ASIAN markets and AKIA'],
  ['https://user@example.com/path?q=search&page=2', 'https://user@example.com/path?q=search&page=2'],
  ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z'],
  ['let x = token;', 'let x = token;'],
  ['a == b && c != d', 'a == b && c != d'],
  ['token: abc123', 'token: abc123'],
  ['the secret = 42', 'the secret = 42'],
  ['mail me@example.com', 'mail me@example.com'],
  ['npm_config_registry', 'npm_config_registry'],
  ['sk-learn', 'sk-learn'],
  ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig', 'eyJhbG...xIn0.sig'], // B8: segments of 4 or more
  ['', ''],
  ['héllo wörld_ß-１.txt', 'héllo wörld_ß-１.txt'],
];

describe('redact: table', () => {
  beforeEach(() => clearRedactCache());

  it('returns a non-string unchanged instead of throwing (callers outside TypeScript)', () => {
    expect(redact(undefined as unknown as string)).toBe(undefined);
    expect(redact(42 as unknown as string)).toBe(42);
  });

  it('has at least 100 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(100);
  });

  it.each(CASES)('%j', (input, expected) => {
    expect(redact(input)).toBe(expected);
    // Stable under a second pass: a stored, already-redacted text does not degrade further.
    expect(redact(expected)).toBe(expected);
  });
});


describe('redact: masking rule', () => {
  it('masks a 17-character token fully and an 18-character one partially', () => {
    expect(redact('TOKEN=abcdefghijklmnopq')).toBe('TOKEN=***');
    expect(redact('TOKEN=abcdefghijklmnopqr')).toBe('TOKEN=abcdef...opqr');
  });

  it('counts code points, so a mask never splits a character', () => {
    // U+1D400 MATHEMATICAL BOLD CAPITAL A is a letter outside the BMP: 2 UTF-16 units each.
    const value = '𝐀'.repeat(18);
    expect(value.length).toBe(36);
    expect(redact(`SECRET=${value}`)).toBe(`SECRET=${'𝐀'.repeat(6)}...${'𝐀'.repeat(4)}`);
    expect(redact(`SECRET=${'𝐀'.repeat(17)}`)).toBe('SECRET=***');
    // Emoji are not letters or digits: a value made of them alone is kept, like `KEY=")"`.
    expect(redact('SECRET=😀😀')).toBe('SECRET=😀😀');
  });

  it('masks a value once, from the original token (never a mask of a mask)', () => {
    // An sk- key inside an AUTH assignment: one mask of the whole original value.
    expect(redact('AUTH=sk-abcdefghijklmnopqrstuvwxyz0123')).toBe('AUTH=sk-abc...0123');
    // Bearer inside an Authorization assignment: the scheme survives, the credential is masked once.
    expect(redact('AUTHORIZATION=Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789')).toBe(
      'AUTHORIZATION=Bearer ghp_ab...6789',
    );
  });
});

describe('redact: memo cache', () => {
  beforeEach(() => clearRedactCache());

  it('is bounded at MEMO_MAX_ENTRIES and evicts the least recently used entry', () => {
    expect(MEMO_MAX_ENTRIES).toBe(4096);
    redact('first TOKEN=one');
    redact('second TOKEN=two');
    // Texts the rules must read (a `=` and a keyword): what the screen passes is not memoized (next test).
    for (let i = 0; i < MEMO_MAX_ENTRIES - 2; i++) redact(`filler TOKEN_${i}=`);
    expect(redactCacheSize()).toBe(MEMO_MAX_ENTRIES);
    // A hit refreshes "first", so the next insertion evicts "second" instead.
    expect(redact('first TOKEN=one')).toBe('first TOKEN=***');
    redact('one more TOKEN=');
    expect(redactCacheSize()).toBe(MEMO_MAX_ENTRIES);
    expect(isRedactCached('first TOKEN=one')).toBe(true);
    expect(isRedactCached('second TOKEN=two')).toBe(false);
    expect(isRedactCached('filler TOKEN_0=')).toBe(true);
    for (let i = 0; i < 1000; i++) redact(`more TOKEN_${i}=`);
    expect(redactCacheSize()).toBe(MEMO_MAX_ENTRIES);
    expect(isRedactCached('filler TOKEN_999=')).toBe(false);
    expect(isRedactCached('more TOKEN_999=')).toBe(true);
  });

  it('does not memoize a text the screen proves untouched (one pass costs less than a memo entry)', () => {
    expect(redact('Getting started with the parser')).toBe('Getting started with the parser');
    expect(isRedactCached('Getting started with the parser')).toBe(false);
    expect(redactCacheSize()).toBe(0);
  });

  it('memoizes strings up to MEMO_MAX_CHARS and never longer ones', () => {
    expect(MEMO_MAX_CHARS).toBe(16384);
    const atLimit = 'a'.repeat(MEMO_MAX_CHARS - 14) + ' TOKEN=secret';
    expect(atLimit.length).toBe(MEMO_MAX_CHARS - 1);
    const exact = atLimit + 'x';
    const over = exact + 'y';
    expect(redact(exact)).toBe('a'.repeat(MEMO_MAX_CHARS - 14) + ' TOKEN=***');
    expect(isRedactCached(exact)).toBe(true);
    expect(redact(over)).toBe('a'.repeat(MEMO_MAX_CHARS - 14) + ' TOKEN=***');
    expect(isRedactCached(over)).toBe(false);
    expect(redactCacheSize()).toBe(1);
  });

  it('re-redacts long strings on every call (a secret near the end of 1 MiB is found each time)', () => {
    const long = 'word '.repeat(200_000) + 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    for (let i = 0; i < 3; i++) expect(redact(long).endsWith('word ghp_ab...6789')).toBe(true);
    expect(redactCacheSize()).toBe(0);
  });

  it('returns the same text from the cache as from a fresh pass', () => {
    const text = 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz and PASSWORD=x';
    const fresh = redact(text);
    expect(isRedactCached(text)).toBe(true);
    expect(redact(text)).toBe(fresh);
    expect(fresh).toBe('Authorization: Bearer abcdef...wxyz and PASSWORD=***');
  });
});

describe('redactDeep', () => {
  beforeEach(() => clearRedactCache());

  it('redacts every string value in nested objects and arrays, keeps keys and other types', () => {
    const when = new Date(0);
    const input = {
      title: 'TOKEN=abc',
      count: 3,
      ok: true,
      none: null,
      missing: undefined,
      when,
      'PASSWORD=key-kept': 'plain',
      messages: [{ role: 'user', text: 'use ghp_abcdefghijklmnopqrstuvwxyz0123456789' }, 'AUTH=x', 7, [['SECRET=deep']]],
    };
    const out = redactDeep(input);
    expect(out).toEqual({
      title: 'TOKEN=***',
      count: 3,
      ok: true,
      none: null,
      missing: undefined,
      when,
      'PASSWORD=key-kept': 'plain',
      messages: [{ role: 'user', text: 'use ghp_ab...6789' }, 'AUTH=***', 7, [['SECRET=***']]],
    });
    expect(out.when).toBe(when);
    // The input is not mutated.
    expect(input.title).toBe('TOKEN=abc');
    expect(input.messages[1]).toBe('AUTH=x');
    expect(out.messages).not.toBe(input.messages);
  });

  it('redacts a top-level string and returns other primitives unchanged', () => {
    expect(redactDeep('SECRET=abc')).toBe('SECRET=***');
    expect(redactDeep(42)).toBe(42);
    expect(redactDeep(null)).toBe(null);
    expect(redactDeep(undefined)).toBe(undefined);
  });

  it('keeps non-plain objects as the same reference', () => {
    const map = new Map([['k', 'TOKEN=abc']]);
    const buf = Buffer.from('TOKEN=abc');
    class Thing {
      secret = 'TOKEN=abc';
    }
    const thing = new Thing();
    const out = redactDeep({ map, buf, thing });
    expect(out.map).toBe(map);
    expect(out.buf).toBe(buf);
    expect(out.thing).toBe(thing);
  });

  it('copies a JSON "__proto__" key as an own key without touching the prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": "TOKEN=abc"}, "a": "b"}') as Record<string, unknown>;
    const out = redactDeep(input);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: 'TOKEN=***' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('survives cycles and keeps the shape (a cycle in the input is a cycle in the copy)', () => {
    const node: Record<string, unknown> = { name: 'SECRET=abc' };
    node.self = node;
    const shared = { s: 'TOKEN=x' };
    const out = redactDeep({ node, list: [shared, shared] });
    expect(out.node).not.toBe(node);
    expect((out.node as Record<string, unknown>).self).toBe(out.node);
    expect((out.node as Record<string, unknown>).name).toBe('SECRET=***');
    expect(out.list[0]).toBe(out.list[1]);
    expect(out.list[0]).toEqual({ s: 'TOKEN=***' });
  });

  it('handles nesting far deeper than the call stack allows', () => {
    let deep: unknown = 'PASSWORD=bottom';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    let out = redactDeep(deep);
    for (let i = 0; i < 200_000; i++) out = (out as unknown[])[0];
    expect(out).toBe('PASSWORD=***');
  });

  it('keeps array holes as undefined entries of the same length', () => {
    // eslint-disable-next-line no-sparse-arrays
    const out = redactDeep([, 'TOKEN=a'] as unknown[]);
    expect(out).toHaveLength(2);
    expect(out[0]).toBeUndefined();
    expect(out[1]).toBe('TOKEN=***');
  });
});
