// Redaction reads Markdown escapes and typographic quotes as a person reads them (issue 33, finding 5): the
// Office converter writes `ghp_…` as `ghp\_…`, and Word quotes `"api_key"` as `“api_key”`.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamRedactor } from './stream-redact.js';
import { escapeInline } from '../office/markdown.js';
import { redact } from './index.js';
import { hasMarkdownEscape, unescapeMarkdown } from './markdown-escapes.js';

const GHP = 'ghp_Q7abcdefghijklmnopqrstuvVbNm';
const PAT = 'github_pat_11ABCDEFG0123456789_abcdefghijKLMNOP';
const STRIPE = 'sk_live_51Habcdefghijklmnopqrst';
const HF = 'hf_abcdefghijklmnopqrstuvwxyz';
const VALUE = 'abc123def456ghi789xyz';

/** What Markdown shows of `text` (the converter's escapes read back). */
const shown = (text: string) => unescapeMarkdown(text).copy;

describe('redact: Markdown escapes are read through', () => {
  it('masks vendor keys the Office converter escaped, as the same key in plain text', () => {
    for (const key of [GHP, PAT, STRIPE, HF]) {
      const plain = redact(`key ${key} end`);
      const markdown = redact(`key ${escapeInline(key)} end`);
      expect(plain).not.toContain(key);
      expect(markdown).not.toContain(escapeInline(key));
      // Markdown shows exactly what the plain text's mask is.
      expect(shown(markdown)).toBe(plain);
    }
    expect(redact(`key ${escapeInline(GHP)} end`)).toBe('key ghp\\_Q7...VbNm end');
    expect(redact(`| ${escapeInline(STRIPE)} | x |`)).toBe('| sk\\_liv...qrst | x |');
    expect(redact(escapeInline(PAT))).toBe('github...MNOP');
  });

  it('masks a JSON field whose name was escaped, keeping the Markdown around it', () => {
    expect(redact(`{"api\\_key": "${VALUE}"}`)).toBe('{"api\\_key": "abc123...9xyz"}');
    expect(redact('API\\_KEY=hunter2x')).toBe('API\\_KEY=***');
    // A mask made from escaped characters is escaped again, so the Markdown still reads as the mask.
    expect(redact('PASSWORD=abc\\_def\\_ghi')).toBe('PASSWORD=\\*\\*\\*');
    // A mask made from escaped characters is a mask: a second pass leaves it (the fuzz test's find).
    const once = redact('auth=ABCDEFGHIJKLMNOP\\=api_key');
    expect(once).toBe('auth=ABCDEF...\\_key');
    expect(redact(once)).toBe(once);
  });

  it('leaves the escapes of JSON and code strings to the rules that read them', () => {
    expect(hasMarkdownEscape('"a\\"b\\\\c\\/d\\n"')).toBe(false);
    expect(redact(`"line1\\n${GHP}"`)).toBe('"line1\\nghp_Q7...VbNm"');
    expect(redact('{\\"password\\": \\"hunter2\\"}')).toBe('{\\"password\\": \\"***\\"}');
    // `\\\\_` is a backslash shown, then `_`: no escape of the `_`.
    expect(unescapeMarkdown('a\\\\_b\\_c').copy).toBe('a\\\\_b_c');
  });

  it('a token whose mask would keep a backslash is masked whole: redacting twice changes nothing', () => {
    // Found by redact.fuzz.test.ts. A kept backslash was written again as two (read back as two), or, cut out of
    // its pair, made a Markdown escape with the ellipsis after it (`\\.`): the second pass masked the mask.
    for (const [text, once] of [
      ['Authorization: Bearer \\***Authorization\\😀', 'Authorization: Bearer \\*\\*\\*'],
      ['Authorization: Bearer =sk-TOKENword\\\\...', 'Authorization: Bearer ***'],
    ]) {
      expect(redact(text!)).toBe(once);
      expect(redact(once!)).toBe(once);
    }
  });

  it('masks every key, as written or escaped, and redacting twice changes nothing (property)', () => {
    const piece = fc.constantFrom(GHP, PAT, STRIPE, HF, `"api_key": "${VALUE}"`, 'API_KEY=hunter2x', 'plain words', '-----BEGIN', '\\', '*', '_', ' ', '\n', '`', '|');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.boolean(), (pieces, escape) => {
        const raw = pieces.join(' ');
        const text = escape ? escapeInline(raw) : raw;
        const once = redact(text);
        expect(redact(once)).toBe(once);
        for (const key of [GHP, PAT, STRIPE, HF, VALUE]) expect(shown(once)).not.toContain(key);
      }),
      { numRuns: 300 },
    );
  });
});

describe('redact: typographic quotes are quotes', () => {
  it('masks a JSON field or a Python repr in smart quotes, keeping the quotes', () => {
    expect(redact(`“api_key”: “${VALUE}”`)).toBe('“api_key”: “abc123...9xyz”');
    expect(redact(`‘api_key’: ‘${VALUE}’`)).toBe('‘api_key’: ‘abc123...9xyz’');
    // Word turns `"` after a non-space into ”: `{”token”: ”…”}`.
    expect(redact(`{”token”: ”${VALUE}”}`)).toBe('{”token”: ”abc123...9xyz”}');
  });

  it('masks a whole quoted value, spaces included, and keeps its quotes (A4, B3, YAML)', () => {
    expect(redact('API_KEY=“correct horse battery”')).toBe('API_KEY=“correc...tery”');
    expect(redact('PASSWORD=”hunter2”')).toBe('PASSWORD=”***”');
    expect(redact('API_KEY=‘hunter2x’')).toBe('API_KEY=‘***’');
    expect(redact(`api_key = “${VALUE}”`)).toBe('api_key = “abc123...9xyz”');
    expect(redact('password: “hunter2”')).toBe('password: “***”');
  });

  it('a value of quotes alone stays as it is', () => {
    expect(redact('API_KEY=“”')).toBe('API_KEY=“”');
  });
});

describe('a streamed reply with Markdown escapes and typographic quotes', () => {
  it('is sent as redact(whole) masks it, never a prefix more, in any chunking (property)', () => {
    const construct = fc.constantFrom(
      'API_KEY=“correct horse battery”',
      '“api_key”: “abc123 def456 ghi789”',
      '{”token”: ”abc def ghi jkl”}',
      'password: ‘hunter2 again’',
      `token ${escapeInline(GHP)} end`,
      `“api\\_key”: “${VALUE}”`,
      'plain words here',
    );
    fc.assert(
      fc.property(fc.array(construct, { minLength: 1, maxLength: 4 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 12 }), (parts, sizes) => {
        const text = parts.join(' ');
        const whole = redact(text);
        const r = new StreamRedactor();
        let sent = '';
        for (let at = 0, i = 0; at < text.length; i++) {
          const size = sizes[i % sizes.length]!;
          sent += r.push(text.slice(at, at + size));
          at += size;
          expect(whole.startsWith(sent), `${JSON.stringify(sent)} / ${JSON.stringify(whole)}`).toBe(true);
        }
        expect(sent + r.flush()).toBe(whole);
      }),
      { numRuns: 300 },
    );
  });
});
