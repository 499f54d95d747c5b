// Table tests built from ../shared/spec/redaction.md: every rule at its minimum (masked) and one short (kept),
// the token in prose, JSON, a URL query and quotes; the page's own examples verbatim; the must-stay-untouched
// list; and redacting twice changes nothing. Expected masks come from a naive reimplementation of the rule.
import { describe, expect, it } from 'vitest';
import { redact, redactionFindings } from './index.js';

const mask = (token: string) => {
  const p = [...token];
  return p.length >= 18 ? `${p.slice(0, 6).join('')}...${p.slice(-4).join('')}` : '***';
};
const ALNUM = 'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9cF2hL4rX6uA8bC0eG2iM4oP6tR8wY0xD2fJ4kL6nS8';
const UPPER = 'AB3DE5GH7JK9MN1PQ3ST5VW7YZ9CF2HL4RX6UA8BC0EG2IM4OP6TR8WY0XD2FJ4KL6NS8';

// [prefix, tail alphabet sample, minimum tail] from A1, B1 and C.
const VENDORS: Array<[string, string, number]> = [
  ['sk-', ALNUM, 10], ['ghp_', ALNUM, 10], ['gho_', ALNUM, 10], ['ghu_', ALNUM, 10], ['ghs_', ALNUM, 10], ['ghr_', ALNUM, 10],
  ['github_pat_', ALNUM, 10], ['xoxb-', ALNUM, 10], ['xoxa-', ALNUM, 10], ['xoxp-', ALNUM, 10], ['xoxr-', ALNUM, 10],
  ['xoxs-', ALNUM, 10], ['AIza', ALNUM, 30], ['pplx-', ALNUM, 10], ['fal_', ALNUM, 10], ['fc-', ALNUM, 10],
  ['bb_live_', ALNUM, 10], ['gAAAA', ALNUM, 20], ['sk_live_', ALNUM, 10], ['sk_test_', ALNUM, 10], ['rk_live_', ALNUM, 10],
  ['SG.', ALNUM, 10], ['hf_', ALNUM, 10], ['r8_', ALNUM, 10], ['npm_', ALNUM, 10], ['pypi-', ALNUM, 10],
  ['dop_v1_', ALNUM, 10], ['doo_v1_', ALNUM, 10], ['am_', ALNUM, 10], ['sk_', ALNUM, 10], ['tvly-', ALNUM, 10],
  ['exa_', ALNUM, 10], ['gsk_', ALNUM, 10], ['syt_', ALNUM, 10], ['retaindb_', ALNUM, 10], ['hsk-', ALNUM, 10],
  ['mem0_', ALNUM, 10], ['brv_', ALNUM, 10],
  ['xapp-1-', ALNUM, 10], ['xai-', ALNUM, 30], ['ntn_', ALNUM, 10], ['fw-', ALNUM, 30], ['fw_', ALNUM, 30], ['fpk_', ALNUM, 30],
  ['glpat-', ALNUM, 10], ['gloas-', ALNUM, 10], ['gldt-', ALNUM, 10], ['glcbt-', ALNUM, 10], ['glptt-', ALNUM, 10],
  ['glft-', ALNUM, 10], ['glimt-', ALNUM, 10], ['glagent-', ALNUM, 10], ['glsoat-', ALNUM, 10], ['glffct-', ALNUM, 10],
  ['glwt-', ALNUM, 10], ['glrt-', ALNUM, 10], ['glrtr-', ALNUM, 10], ['GR1348941', ALNUM, 10], ['pk-lf-', ALNUM, 8],
  ['am_org_', ALNUM, 6],
];

/** The places a token shows up in: prose, a JSON string, a URL query, quotes. */
const PLACES: Array<[string, (t: string) => string]> = [
  ['prose', (t) => `please use ${t} for the deploy.`],
  ['json', (t) => JSON.stringify({ note: t, n: 1 })],
  ['url query', (t) => `https://api.example.test/v1/items?key=${t}&page=2`],
  ['quotes', (t) => `client('${t}') and "${t}"`],
];

function expectMasked(token: string, rule: RegExp): void {
  for (const [, place] of PLACES) {
    const text = place(token);
    const out = redact(text);
    expect(out).toBe(text.split(token).join(mask(token)));
    expect(redact(out)).toBe(out);
    expect(redactionFindings(text).every((f) => rule.test(f.rule))).toBe(true);
  }
}

function expectKept(text: string): void {
  for (const [, place] of PLACES) expect(redact(place(text))).toBe(place(text));
}

describe('A1, B1, C: vendor prefixes', () => {
  it.each(VENDORS)('%s: masked at the minimum tail in prose, JSON, a URL query and quotes; kept one short', (prefix, alphabet, min) => {
    expectMasked(prefix + alphabet.slice(0, min), /vendor key|aws/);
    // am_org_ is am_ with org_ as part of its tail; sk_live_/sk_test_ + 9 are the generic sk_ (A1's last rows).
    if (prefix === 'sk_live_' || prefix === 'sk_test_') expectMasked(prefix + alphabet.slice(0, min - 1), /vendor key sk_/);
    else if (prefix !== 'am_org_') expectKept(prefix + alphabet.slice(0, min - 1));
  });

  it('needs a token boundary on both sides', () => {
    expect(redact('xghp_aB3dE5gH7jK9')).toBe('xghp_aB3dE5gH7jK9');
    expect(redact('ghp_aB3dE5gH7jK9_')).toBe('ghp_aB3dE5gH7jK9_');
    expect(redact('ghp_ABCDEFGHIJ_KLM')).toBe('ghp_ABCDEFGHIJ_KLM'); // the page's example
    expect(redact('ghp_aB3dE5gH7jK9-x')).toBe('ghp_aB3dE5gH7jK9-x');
    expect(redact('(ghp_aB3dE5gH7jK9)')).toBe('(***)');
  });

  it('masks a key glued after `_`, `-` or `.` like one after a space (issue 21)', () => {
    const key = 'sk-proj-Ab3dE5gH7jK9mN1pQ3sT5v';
    const gh = 'ghp_aB3dE5gH7jK9lM2nO4pQ6rS8tU0vW';
    for (const [glued, token] of [['tool_', key], ['x-', gh], ['my_', gh], ['env.', gh], ['a-b_', 'hf_Ab3dE5gH7jK9mN1'], ['x_', 'glpat-Ab3dE5gH7jK9mN1pQ3s']] as const) {
      expect(redact(`${glued}${token} after`)).toBe(`${glued}${mask(token)} after`);
      expect(redact(`${glued}${token} after`)).toBe(redact(`${glued.slice(0, -1)} ${token} after`).replace(' ', glued.slice(-1)));
    }
    // Glued to a word, a tail needs a letter and a digit: identifiers made of words stay.
    for (const word of ['load_hf_checkpoint', 'from_hf_pretrained', 'my-fc-configuration', 'self.param_am_config_value_x', 'task_sk_something_long']) {
      expect(redact(word)).toBe(word);
    }
    // After a letter or digit there is still no token.
    expect(redact('xghp_aB3dE5gH7jK9lM2nO4')).toBe('xghp_aB3dE5gH7jK9lM2nO4');
  });

  it('takes sk- through single dots, not through ..', () => {
    expect(redact('sk-sp-abc.defghijklmnop')).toBe(mask('sk-sp-abc.defghijklmnop'));
    expect(redact('sk-abcdefghijkl..rest')).toBe(`${mask('sk-abcdefghijkl')}..rest`);
    expect(redact('end sk-abcdefghijkl.')).toBe(`end ${mask('sk-abcdefghijkl')}.`);
  });

  it('catches sk_live_ + 9 with the generic sk_', () => {
    expect(redact('sk_live_aB3dE5gH7')).toBe('***');
    expect(redact('sk_live_aB3dE5gH7jK9mN1pQ3')).toBe(mask('sk_live_aB3dE5gH7jK9mN1pQ3'));
  });

  it('masks a token right after a backslash escape of escaped JSON', () => {
    expect(redact('"line1\\nghp_aB3dE5gH7jK9mN1pQ3sT5"')).toBe(`"line1\\n${mask('ghp_aB3dE5gH7jK9mN1pQ3sT5')}"`);
    expect(redact('"a\\u0041ghp_aB3dE5gH7jK9mN1pQ3sT5"')).toBe(`"a\\u0041${mask('ghp_aB3dE5gH7jK9mN1pQ3sT5')}"`);
    expect(redact('"a\\x41ghp_aB3dE5gH7jK9mN1pQ3sT5"')).toBe(`"a\\x41${mask('ghp_aB3dE5gH7jK9mN1pQ3sT5')}"`);
    expect(redact('"a\\tghp_aB3dE5gH7jK9mN1pQ3sT5"')).toBe(`"a\\t${mask('ghp_aB3dE5gH7jK9mN1pQ3sT5')}"`);
  });

  it('keeps the known, accepted false positives', () => {
    expect(redact('sk-learn-compatible-estimator')).toBe(mask('sk-learn-compatible-estimator'));
    expect(redact('schema.am_example_identifier_123')).toBe(`schema.${mask('am_example_identifier_123')}`);
  });
});

describe('A2, C: AWS access key ids anywhere', () => {
  it('masks AKIA/ASIA + 16 with no boundary check, exactly 20 characters', () => {
    for (const prefix of ['AKIA', 'ASIA']) {
      const id = prefix + UPPER.slice(0, 16);
      expectMasked(id, /aws/);
      for (const glue of ['x', '+', '/', '=', '9']) expect(redact(`${glue}${id}`)).toBe(`${glue}${mask(id)}`);
      expect(redact(`${id}Q`)).toBe(`${mask(id)}Q`); // AKIA + 17: the 21st stays
      expectKept(prefix + UPPER.slice(0, 15));
    }
  });
});

describe('A3, B4: Authorization', () => {
  const token = 'aB3dE5gH7jK9mN1pQ3sT5vW7';
  it.each([
    [`Authorization: Bearer ${token}`, `Authorization: Bearer ${mask(token)}`],
    [`authorization:bearer\t${token}`, `authorization:bearer\t${mask(token)}`],
    [`Proxy-Authorization: Bot ${token}`, `Proxy-Authorization: Bot ${mask(token)}`],
    [`AUTHORIZATION: BEARER ${token}, next`, `AUTHORIZATION: BEARER ${mask(token)}, next`],
    [`(Authorization: Bearer ${token})`, `(Authorization: Bearer ${mask(token)})`],
    ['Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic ***'],
    ['Authorization: Token abc123', 'Authorization: Token ***'],
    [`Authorization: ${token}`, `Authorization: ${mask(token)}`],
    ['"Authorization": "Bearer abc123def"', '"Authorization": "Bearer ***"'],
    ['{\\"Authorization\\": \\"Bearer abc123def\\"}', '{\\"Authorization\\": \\"Bearer ***\\"}'],
    [`HTTP_AUTHORIZATION=Bearer ${token}`, `HTTP_AUTHORIZATION=Bearer ${mask(token)}`],
    // A scheme word another rule masks stays a scheme word on the next pass (found by redact.fuzz.test.ts).
    ['Authorization= AAKIAAAAAAAAAAAAAAAAA 00000000000000000000000000000000.AAAAAAAAAAAAAAAA', 'Authorization= AAKIAAA...AAAA 000000...AAAA'],
    [`Authorization: x_ghp_${'a1'.repeat(18)} ${token}`, `Authorization: x_ghp_a1...a1a1 ${mask(token)}`],
    ['Authorization==Authorization\t/path/to', 'Authorization=***\t/path/to'],
    // A mask whose kept head holds an operator is not read as a new value on the next pass (fuzz counterexamples).
    ['Authorization: Bearer TOKEN=abcdefghij-----END RSA PRIVATE KEY-----', 'Authorization: Bearer TOKEN=...-END RSA PRIVATE KEY-----'],
    ['PASSWORD=TOKEN=Authorization: Bearer ', 'PASSWORD=TOKEN=...ion: Bearer '],
  ])('%s', (input, output) => {
    expect(redact(input)).toBe(output);
    expect(redact(output)).toBe(output);
  });

  it('leaves a header without a token alone', () => {
    expect(redact('Authorization: Bearer \nnext line')).toBe('Authorization: Bearer \nnext line');
    expect(redact('Authorization: Bearer')).toBe('Authorization: Bearer');
  });
});

describe('A4: NAME=value', () => {
  it.each([
    ['GITHUB_TOKEN=ghp_Q7abcdefghijklmnopqrstuvwxyzVbNm', 'GITHUB_TOKEN=ghp_Q7...VbNm'],
    ['MYTOKEN=wE9rT2...J8kL', 'MYTOKEN=wE9rT2...J8kL'],
    ['myAPI_KEY=abc', 'myAPI_KEY=***'],
    ['AUTHOR=Jane', 'AUTHOR=***'],
    ['MAX_TOKENS=4096', 'MAX_TOKENS=***'],
    ['GITHUB_TOKEN = hunter2x', 'GITHUB_TOKEN=***'],
    ['PASSWORD="correct horse battery"', `PASSWORD="${mask('correct horse battery')}"`],
    ["SECRET='x y'", "SECRET='***'"],
    ['PASSWORD=`hunter2`', 'PASSWORD=`***`'],
    ['{"cmd": "export API_KEY=abc123"}', '{"cmd": "export API_KEY=***"}'],
    ['[API_KEY=abc123]', '[API_KEY=***]'],
    ['{TOKEN=abc123}', '{TOKEN=***}'],
    ['f(TOKEN=abc123, x)', 'f(TOKEN=***, x)'],
    ['DB_PASSWD=a1 CREDENTIAL=b2 APIKEY=c3', 'DB_PASSWD=*** CREDENTIAL=*** APIKEY=***'],
  ])('%s', (input, output) => {
    expect(redact(input)).toBe(output);
    expect(redact(output)).toBe(output);
  });

  it('allows at most 50 name characters after the keyword', () => {
    expect(redact(`TOKEN${'_'.repeat(50)}=abc`)).toBe(`TOKEN${'_'.repeat(50)}=***`);
    expect(redact(`TOKEN${'_'.repeat(51)}=abc`)).toBe(`TOKEN${'_'.repeat(51)}=abc`);
  });

  it('keeps a value without an alphanumeric character exactly as it was', () => {
    for (const text of ['API_KEY=")"', 'line.startswith("API_KEY="):', 'PASSWORD=---', 'TOKEN = ***', 'SECRET=""']) {
      expect(redact(text)).toBe(text);
    }
  });

  it('counts letters and digits of any script as alphanumeric', () => {
    expect(redact('PASSWORD=пароль')).toBe('PASSWORD=***');
    expect(redact('PASSWORD=٣٤')).toBe('PASSWORD=***');
  });
});

describe('A5, C: private keys', () => {
  const body = 'MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n/ygWyF8PbnGy0AHB7MhgHcTz6sE2';
  it.each(['RSA ', 'EC ', 'OPENSSH ', 'DSA ', 'ENCRYPTED ', ''])('%sPRIVATE KEY', (label) => {
    const text = `a\n-----BEGIN ${label}PRIVATE KEY-----\n${body}\n-----END ${label}PRIVATE KEY-----\nb`;
    expect(redact(text)).toBe('a\n[REDACTED PRIVATE KEY]\nb');
  });

  it('takes the shortest block, with labels that need not match', () => {
    const block = (b: string, e: string) => `-----BEGIN ${b}PRIVATE KEY-----\n${body}\n-----END ${e}PRIVATE KEY-----`;
    expect(redact(`${block('RSA ', 'EC ')} mid ${block('', '')}`)).toBe('[REDACTED PRIVATE KEY] mid [REDACTED PRIVATE KEY]');
  });

  it('masks PGP armour and a BEGIN without its END to the end of the text', () => {
    expect(redact(`x -----BEGIN PGP PRIVATE KEY BLOCK-----\n${body}\n-----END PGP PRIVATE KEY BLOCK----- y`)).toBe('x [REDACTED PRIVATE KEY] y');
    expect(redact(`x -----BEGIN RSA PRIVATE KEY-----\n${body}\nTOKEN=abc`)).toBe('x [REDACTED PRIVATE KEY]');
  });

  it('leaves public keys and certificates alone', () => {
    for (const kind of ['PUBLIC KEY', 'CERTIFICATE', 'PGP PUBLIC KEY BLOCK']) {
      const text = `-----BEGIN ${kind}-----\n${body}\n-----END ${kind}-----`;
      expect(redact(text)).toBe(text);
    }
  });
});

describe('B2: Zhipu keys', () => {
  const hex = '0123456789abcdef0123456789abcdef';
  it('masks 32 hex + . + 16 alphanumerics, not with [A-Za-z0-9_.-] either side', () => {
    expectMasked(`${hex}.${ALNUM.slice(0, 16)}`, /zhipu/);
    expectKept(`${hex}.${ALNUM.slice(0, 15)}`);
    expect(redact(`x.${hex}.${ALNUM.slice(0, 16)}`)).toBe(`x.${hex}.${ALNUM.slice(0, 16)}`);
    expect(redact(`${hex}.${ALNUM.slice(0, 16)}-`)).toBe(`${hex}.${ALNUM.slice(0, 16)}-`);
  });
});

describe('B3: more assignment shapes', () => {
  it.each([
    ['openai_api_key=abc123', 'openai_api_key=***'],
    ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', `aws_secret_access_key = ${mask('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY')}`],
    ['db_pass="hunter2"', 'db_pass="***"'],
    ['spring.datasource.password=x', 'spring.datasource.password=***'],
    ['password=hunter2', 'password=***'],
    ['  credential=abc', '  credential=***'],
    ['12| password=hunter2', '12| password=***'],
    ['12:password=hunter2', '12:password=***'],
    ['12\tpassword=hunter2', '12\tpassword=***'],
    ['export db_password=hunter2', 'export db_password=***'],
    ['auth=abc&x=1', 'auth=***&x=1'],
    ['mysql --password=hunter2 db', 'mysql --password=*** db'],
    ['{"password": "hunter2"}', '{"password": "***"}'],
    ['{"apiKey": "AbCdEf123456"}', '{"apiKey": "***"}'],
    ['{"access_token": "abc"}', '{"access_token": "***"}'],
    ['{\\"password\\": \\"hunter2\\"}', '{\\"password\\": \\"***\\"}'],
    ["{'password': 'hunter2'}", "{'password': '***'}"],
    ["{'OPENAI_API_KEY': 'sk-abc'}", "{'OPENAI_API_KEY': '***'}"],
    ["{'db_credentials': b'hunter2'}", "{'db_credentials': b'***'}"],
    ['password: hunter2', 'password: ***'],
    ['  api_key: AbCdEf123456  # prod', '  api_key: ***  # prod'],
    ['token: aB3dE5gH7jK9mN1pQ3sT5', `token: ${mask('aB3dE5gH7jK9mN1pQ3sT5')}`],
    // A masked vendor token before `=` is no dotted config key on the next pass (fuzz counterexample).
    ['sk-Authorizationauth= ghp_AAAAAAAAAA\u200bAAAA', 'sk-Aut...auth= ***\u200bAAAA'],
  ])('%s', (input, output) => {
    expect(redact(input)).toBe(output);
    expect(redact(output)).toBe(output);
  });

  it.each([
    'api_key = os.getenv("OPENAI_API_KEY")',
    'token = os.environ["GH_TOKEN"]',
    'const token = process.env.GH_TOKEN',
    'client = OpenAI(api_key=api_key)',
    'db_password=self.db_password',
    'token: abc', // a weak name and a plain value
    'tokenizer: gpt2',
    'max_tokens: 4096',
    'KEYBOARD: qwerty',
    'MYTOKEN: abcdef',
    'secret_key=$SECRET_KEY',
    'ssh_key=~/.ssh/id_ed25519',
    'the secret = 42',
    '{"token": "abc"}',
    'Password: please type it twice',
  ])('keeps %s', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('masks a variable under a password name', () => {
    expect(redact('db_password=$DB_PASSWORD')).toBe('db_password=***');
  });
});

describe('B5: API-key headers', () => {
  it.each(['x-api-key', 'X-Goog-Api-Key', 'api-key', 'apikey', 'x-api-token', 'X-Auth-Token', 'x-access-token'])('%s', (name) => {
    expect(redact(`${name}: abcd1234`)).toBe(`${name}: ***`);
    expect(redact(`"${name}": "abcd1234"`)).toBe(`"${name}": "***"`);
  });
});

describe('B6: Telegram bot tokens', () => {
  const secret = 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
  it('masks the part after the colon', () => {
    expect(redact(`bot12345678:${secret}`)).toBe('bot12345678:***');
    expect(redact(`url /bot12345678:${secret}/getMe`)).toBe('url /bot12345678:***/getMe');
    expect(redact(`12345678:${secret.slice(0, 30)}`)).toBe('12345678:***');
    expect(redact(`1234567:${secret}`)).toBe(`1234567:${secret}`);
    expect(redact(`12345678:${secret.slice(0, 29)}`)).toBe(`12345678:${secret.slice(0, 29)}`);
  });
});

describe('B7, C: URLs', () => {
  it.each([
    ['postgres://user:secret@host/db', 'postgres://user:***@host/db'],
    ['POSTGRESQL://u:p/ss:w#rd@host', 'POSTGRESQL://u:***@host'],
    ['mongodb+srv://app:hunter2@cluster0.x.net', 'mongodb+srv://app:***@cluster0.x.net'],
    ['redis://:hunter2@cache:6379', 'redis://:***@cache:6379'],
    ['amqp://guest:guest@rabbit', 'amqp://guest:***@rabbit'],
    ['mysql://root:pw@db', 'mysql://root:***@db'],
    ['https://bob:hunter2@host/x', 'https://bob:***@host/x'],
    ['https://abcdef1234567890@host/x', 'https://***@host/x'],
    ['git://abcdefgh@host/x', 'git://***@host/x'],
    ['https://hooks.slack.com/services/T0001/B0002/aB3dE5gH7jK9mN1pQ3sT5vW7', `https://hooks.slack.com/services/T0001/B0002/${mask('aB3dE5gH7jK9mN1pQ3sT5vW7')}`],
  ])('%s', (input, output) => {
    expect(redact(input)).toBe(output);
    expect(redact(output)).toBe(output);
  });

  it('keeps URLs without credentials and short bare userinfo', () => {
    for (const text of ['https://example.com/a?b=c#d', 'ssh://git@github.com/x.git', 'https://abcdefg@host/', 'mailto:me@example.com']) {
      expect(redact(text)).toBe(text);
    }
  });
});

describe('B8: JWTs', () => {
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
  it('masks with no boundary check, up to two dot segments of 4 or more', () => {
    expectMasked(jwt, /jwt/);
    expect(redact(`base64${jwt}`)).toBe(`base64${mask(jwt)}`);
    expect(redact('eyJ0123456789')).toBe('***');
    expect(redact('eyJ012345678')).toBe('eyJ012345678');
  });
});

describe('B9: form bodies', () => {
  it('masks credential values of a whole k=v&k=v line', () => {
    expect(redact('password=hunter2&user=bob&token=abc')).toBe('password=***&user=bob&token=***');
    expect(redact('grant_type=refresh_token&refresh_token=abc&client_secret=xyz&code=1')).toBe(
      'grant_type=refresh_token&refresh_token=***&client_secret=***&code=***',
    );
    expect(redact('user=bob&page=2')).toBe('user=bob&page=2');
    expect(redact('see user=bob&token=abc')).toBe('see user=bob&token=abc');
  });
});

describe('B10: phone numbers', () => {
  it('keeps 2 characters around **** up to 8 characters, else 4', () => {
    expect(redact('call +1234567 now')).toBe('call +1****67 now');
    expect(redact('call +14155552671 now')).toBe('call +141****2671 now');
    expect(redact('+123456789012345')).toBe('+123****2345');
    expect(redact('+1234567890123456')).toBe('+1234567890123456'); // 16 digits: too long
    expect(redact('+123456')).toBe('+123456');
    expect(redact('+0123456789')).toBe('+0123456789');
    expect(redact('a+14155552671')).toBe('a+14155552671');
    expect(redact('+14155552671x')).toBe('+14155552671x');
  });
});

describe('B11: tokens split by invisible characters', () => {
  it.each(['\u200b', '\u200c', '\u200d', '\u200e', '\u2060', '\ufeff', '\u0000', '\u0008', '\u001b', '\u007f', '\u202a', '\u202e'])('%j', (ch) => {
    const token = 'ghp_aB3dE5gH7jK9mN1pQ3sT5';
    const split = `ghp_aB3${ch}dE5gH7jK9mN1pQ3sT5`;
    const out = redact(`x ${split} y`);
    expect(out).toBe(`x ${mask(token)} y`);
    expect(redact(out)).toBe(out);
  });

  it('does not join across whitespace, which separates tokens (tab, line feed, U+001C–001F, U+2028, U+202F)', () => {
    for (const ch of ['\t', '\n', '\r', '\u000b', '\u001c', '\u001f', '\u2028', '\u202f']) {
      expect(redact(`sk-learn${ch}session`)).toBe(`sk-learn${ch}session`);
    }
    expect(redact('0\nghp_A\u200bBCDEFGHIJKL')).toBe(`0\n${mask('ghp_ABCDEFGHIJKL')}`);
  });

  it('only when the span holds nothing but token characters and invisible ones', () => {
    expect(redact('ghp_abc\u200b def ghijklmnop')).toBe('ghp_abc\u200b def ghijklmnop');
  });
});

describe('C: Discord, Azure, Twilio', () => {
  it('masks Discord bot tokens', () => {
    const token = `M${ALNUM.slice(0, 23)}.${'GaBcDe'}.${ALNUM.slice(0, 27)}`;
    expectMasked(token, /discord/);
    expectKept(`M${ALNUM.slice(0, 23)}.GaBcDe.${ALNUM.slice(0, 26)}`);
    expectKept(`X${ALNUM.slice(0, 23)}.GaBcDe.${ALNUM.slice(0, 27)}`);
  });

  it('masks Azure AccountKey, SharedAccessKey and SharedAccessSignature values', () => {
    const key = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
    expect(redact(`DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${key};EndpointSuffix=core.windows.net`)).toBe(
      `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${mask(key)};EndpointSuffix=core.windows.net`,
    );
    expect(redact('Endpoint=sb://x/;SharedAccessKeyName=n;SharedAccessKey=abc123')).toBe('Endpoint=sb://x/;SharedAccessKeyName=n;SharedAccessKey=***');
    expect(redact('BlobEndpoint=b;SharedAccessSignature=sv=2020&sig=abc')).toBe('BlobEndpoint=b;SharedAccessSignature=***');
  });

  it('masks Twilio key sids SK + 32 lower-case hex', () => {
    expectMasked(`SK${'0123456789abcdef'.repeat(2)}`, /twilio/);
    expectKept(`SK${'0123456789abcdef'.repeat(2).slice(0, 31)}`);
  });
});

describe('principles', () => {
  it('masks in code points, never UTF-16 units', () => {
    const letter = '\u{1D400}'; // MATHEMATICAL BOLD CAPITAL A: one code point, two UTF-16 units, a letter
    expect(redact(`PASSWORD=${letter.repeat(18)}`)).toBe(`PASSWORD=${letter.repeat(6)}...${letter.repeat(4)}`);
    expect(redact(`PASSWORD=${letter.repeat(17)}`)).toBe('PASSWORD=***');
    expect(redact('PASSWORD=😀😀😀')).toBe('PASSWORD=😀😀😀'); // emoji are not alphanumeric
  });

  it('uses Python whitespace: U+001C–001F and U+0085 end a value, U+FEFF does not', () => {
    expect(redact('TOKEN=abc\u001cdef')).toBe('TOKEN=***\u001cdef');
    expect(redact('TOKEN=abc\u0085def')).toBe('TOKEN=***\u0085def');
    expect(redact('TOKEN=abc\ufeffdef')).toBe('TOKEN=***');
  });

  it('keeps the structure around a secret', () => {
    expect(redact('{"cmd": "export API_KEY=abc123"}')).toBe('{"cmd": "export API_KEY=***"}');
    expect(redact('["ghp_aB3dE5gH7jK9mN1pQ3sT5", 1]')).toBe(`["${mask('ghp_aB3dE5gH7jK9mN1pQ3sT5')}", 1]`);
  });

  it('applies every rule to every string, whatever else is in it (no prefilter)', () => {
    expect(redact('xoxb-aB3dE5gH7jK9')).toBe('***');
    expect(redact('ntn_aB3dE5gH7jK9 and nothing else')).toBe('*** and nothing else');
  });
});

describe('must stay untouched', () => {
  it.each([
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'da39a3ee5e6b4b0d3255bfef95601890afd80709',
    '123e4567-e89b-12d3-a456-426614174000',
    'The quick brown fox jumps over the lazy dog. Tokens, secrets and passwords are words too.',
    '/home/me/projects/sk-learn.pdf',
    'C:\\Users\\me\\hf_transformers_finetune\\notes.txt',
    '/srv/data/hf_transformers_finetune',
    'https://example.com/docs/api?page=2&sort=asc',
    'pip install sk-learn',
    'version 1234567890 build 42 +15',
    'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'api_key = os.getenv("OPENAI_API_KEY")',
    'if (password == null) return;',
    'API_KEY=")"',
    'PASSWORD=---',
    'GITHUB_TOKEN=ghp_Q7...VbNm',
    'Authorization: Bearer ***',
    'postgres://user:***@host/db',
    'password=***&user=bob',
    '[REDACTED PRIVATE KEY]',
  ])('%s', (text) => {
    expect(redact(text)).toBe(text);
    expect(redactionFindings(text)).toEqual([]);
  });
});

describe('redactionFindings', () => {
  it('names each rule and where it applies, never the secret', () => {
    const text = 'a GITHUB_TOKEN=ghp_aB3dE5gH7jK9mN1pQ3sT5 b postgres://u:pw@h c +14155552671';
    const findings = redactionFindings(text);
    expect(findings.map((f) => f.rule)).toEqual(['assignment', 'database url', 'phone number']);
    expect(JSON.stringify(findings)).not.toContain('aB3dE5');
    expect(text.slice(findings[1]!.index, findings[1]!.end)).toBe('pw');
  });
});
