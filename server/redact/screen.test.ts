// The screen (screen.ts) must never pass a text a rule would change: a wrong screen leaks secrets. Every text
// below is checked both ways: when the screen passes it, the rules leave it exactly as it is. The texts: the
// fuzz corpus (redact-arbitraries.ts), every string written in the redactor's own tests and their prefixes and
// suffixes (each rule's edge cases, cut just short of or just past a trigger), every vendor shape at and around its
// minimum, every operator name in every shape, and random texts made of every rule's triggers.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { anyText, FRAGMENTS, planted } from '../testing/redact-arbitraries.js';
import { applyRules } from './engine.js';
import { clearRedactCache, redact } from './index.js';
import { forgetSecrets, rememberSecret } from './known.js';
import {
  ALNUM_BEFORE_DOT,
  OPERATOR_KEYWORDS,
  OPERATOR_NAMES,
  SCREENED_RULES,
  screenGap,
  TOKEN_LITERALS,
  TOKEN_MIN,
  untouchedByRules,
} from './screen.js';
import { VENDOR_SHAPES } from './vendors.js';

const HERE = path.dirname(new URL(import.meta.url).pathname);

/** The screen's one promise: a text it passes is one the rules leave as it is. */
function expectExact(text: string): void {
  if (!untouchedByRules(text)) return;
  const out = applyRules(text);
  if (out !== text) expect.fail(`the screen passed a text the rules change: ${JSON.stringify(text)} → ${JSON.stringify(out)}`);
}

/** Every string literal (and template without substitutions) written in a test file of the redactor. */
function testStrings(): string[] {
  const files = ['rules.test.ts', 'redact.test.ts', 'markdown-escapes.test.ts', 'glued.test.ts', 'known.test.ts', 'mask.test.ts', 'stream-redact.test.ts', 'yielding.test.ts', 'redact.fuzz.test.ts'];
  const out = new Set<string>();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(path.join(HERE, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.add(node.text);
      else if (ts.isTemplateExpression(node)) {
        // The template's literal pieces, and the pieces joined with a token-like filler where values go.
        out.add(node.head.text);
        for (const span of node.templateSpans) out.add(span.literal.text);
        out.add(node.head.text + node.templateSpans.map((s) => 'aB3dE5gH7jK9mN1pQ3sT' + s.literal.text).join(''));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return [...out];
}

const ALPHABET = 'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9cF2hL4rX6uA8bC0eG2iM4oP6tR8wY0xD2fJ4kL6nS8';
const UPPER = 'AB3DE5GH7JK9MN1PQ3ST5VW7YZ9CF2HL4RX6UA8BC0EG2IM4OP6TR8WY0XD2FJ4KL6NS8';
const HEX = '0123456789abcdef0123456789abcdef0123456789abcdef';
const tail = (alphabet: string, n: number) => alphabet.repeat(Math.ceil(n / alphabet.length) + 1).slice(0, n);

/** Each vendor token at its minimum, one short and a few past, from its own alphabet, in the places tokens stand. */
function vendorTexts(): string[] {
  const out: string[] = [];
  for (const shape of VENDOR_SHAPES) {
    const alphabet = [...Array(128).keys()].filter((c) => shape.tail[c] === 1).map((c) => String.fromCharCode(c)).join('');
    const mixed = alphabet.replace(/[^A-Za-z0-9]/g, '') + alphabet;
    for (const n of [shape.minTail - 1, shape.minTail, shape.minTail + 1, shape.minTail + 7, 40]) {
      const head = shape.digitsDash ? `${shape.prefix}12-` : shape.prefix;
      const token = head + tail(mixed, n);
      for (const place of [token, ` ${token} `, `_${token}`, `x-${token}7`, `é${token}`, `(${token})`, `${token}.`, `"${token}"`]) out.push(place);
    }
  }
  return out;
}

/** The other token shapes around their minimums. */
function otherTokenTexts(): string[] {
  const out: string[] = [];
  for (const n of [14, 15, 16, 17, 20]) out.push(`AKIA${tail(UPPER, n)}`, `xASIA${tail(UPPER, n)}`, `+/AKIA${tail(UPPER, n)}`);
  for (const n of [8, 9, 10, 11, 20]) out.push(`eyJ${tail(ALPHABET, n)}`, `eyJ${tail(ALPHABET, n)}.${tail(ALPHABET, 5)}.abcd`);
  for (const n of [30, 31, 32, 33]) out.push(`SK${tail(HEX, n)}`, ` SK${tail(HEX, n)} `);
  for (const [a, b, c] of [[23, 6, 27], [24, 6, 27], [25, 6, 26], [26, 6, 30], [24, 5, 27]]) out.push(`M${tail(ALPHABET, a!)}.${tail(ALPHABET, b!)}.${tail(ALPHABET, c!)}`);
  for (const [a, b] of [[32, 16], [32, 15], [31, 16], [33, 20]]) out.push(`${tail(HEX, a!)}.${tail(ALPHABET, b!)}`);
  for (const [a, b] of [[8, 30], [7, 30], [8, 29], [10, 40]]) out.push(`bot${tail('0123456789', a!)}:${tail(ALPHABET, b!)}`, `${tail('0123456789', a!)}:${tail(ALPHABET, b!)}`);
  for (const n of [5, 6, 7, 14, 15]) out.push(`+1${tail('0123456789', n)}`, `call +4${tail('0123456789', n)} now`, `+0${tail('0123456789', n)}`);
  for (const s of ['-----BEGIN PRIVATE KEY-----\nabc', '----BEGIN RSA PRIVATE KEY-----', '-----BEGIN', '[REDACTED PRIVATE KEY] ghp_' + tail(ALPHABET, 12)]) out.push(s);
  for (const c of ['\u200b', '\u0000', '\ufeff', '\u2060', '\u202a', '\x1b', '\x7f']) out.push(`ghp_${tail(ALPHABET, 5)}${c}${tail(ALPHABET, 6)}`);
  for (const s of ['ghp\\_' + tail(ALPHABET, 12), '"api\\_key": "hunter22"', 'PASS\\WORD=x', 'sk\\-' + tail(ALPHABET, 12)]) out.push(s);
  return out;
}

/** Every name an operator rule looks for, in each shape it is read in, with values of each kind. */
function operatorTexts(): string[] {
  const out: string[] = [];
  const values = ['hunter2', 'aB3dE5gH7jK9mN1pQ3sT', '0123456789abcdef01', '$HOME', 'x'];
  const names = [...OPERATOR_NAMES, 'AUTHORIZATION', 'Authorization', 'x-api-key', 'apiKey', 'DB_PASSWORD', 'spring.datasource.password', 'AccountKey', 'SharedAccessSignature'];
  for (const name of names) {
    for (const value of values) {
      out.push(
        `${name}=${value}`, `${name} = "${value}"`, `${name}: ${value}`, `"${name}": "${value}"`, `'${name}': '${value}'`,
        `\n  ${name}: ${value}\n`, `${name}=${value}&user=bob`, `export ${name}=${value}`, `${name}: Bearer ${value}`,
      );
    }
  }
  out.push('https://user:pass1234@example.com/x', 'postgres://app:s3cret@db/x', 'https://abcdef1234567890@host/x', 'https://hooks.slack.com/services/T0/B0/abcdef');
  out.push('a=1&code=xyz', 'session=abc&x=1', 'jwt=abc&sig=def', 'id=1&key=2');
  return out;
}

function corpus(): string[] {
  const texts = [...testStrings(), ...vendorTexts(), ...otherTokenTexts(), ...operatorTexts(), ...FRAGMENTS];
  const out = new Set<string>();
  for (const text of texts) {
    out.add(text);
    out.add(`Title: ${text} (draft)`);
    // Cut just short of and just past every trigger: every prefix and suffix of a short text.
    if (text.length <= 160) for (let i = 1; i < text.length; i++) out.add(text.slice(0, i)).add(text.slice(i));
  }
  return [...out];
}

afterEach(() => {
  forgetSecrets();
  clearRedactCache();
});

describe('screen: exact by construction', () => {
  it('knows every rule the engine runs and every name the operator rules look for (else it is off)', () => {
    expect(screenGap()).toBeNull();
    expect(SCREENED_RULES.size).toBe(13);
    for (const name of OPERATOR_NAMES) expect(OPERATOR_KEYWORDS.some((k) => name.toLowerCase().includes(k)), name).toBe(true);
    // Every token literal is at least as long as its shape's shortest match allows the screen to assume.
    expect(TOKEN_MIN).toBe(13);
    expect(ALNUM_BEFORE_DOT).toBe(24);
    expect(TOKEN_LITERALS).toEqual(expect.arrayContaining(['AKIA', 'ASIA', 'eyJ', 'SK', 'ghp_', 'sk-', 'GR1348941']));
  });

  it('every function the engine imports from a rule module is a rule the screen knows or a step it handles', () => {
    // A rule added to engine.ts outside its lists (TOKEN_SCANS, EQUALS_RULES, COLON_RULES, TEXT_SCANS) fails here;
    // one added to a list turns the screen off until SCREENED_RULES knows it (the test above).
    const source = readFileSync(path.join(HERE, 'engine.ts'), 'utf8');
    const imported = [...source.matchAll(/^import \{([^}]*)\} from '\.\/([a-z-]+)\.js';$/gm)].flatMap(([, names]) =>
      names!.split(',').map((n) => n.trim()).filter((n) => n !== '' && !n.startsWith('type ')),
    );
    const known = new Set([...SCREENED_RULES.keys()].map((f) => (f as { name: string }).name));
    // The steps around the rules, and what the screen does about each: private-key blocks (PEM_DASHES), invisible
    // characters (isInvisible), Markdown escapes (a backslash), and the bookkeeping that finds nothing itself.
    const steps = new Set(['privateKeySpans', 'invisibleFindings', 'hasMarkdownEscape', 'unescapeMarkdown', 'mapBack', 'REDACTED_PRIVATE_KEY', 'RunCache', 'apply', 'resolve']);
    for (const name of imported) expect(known.has(name) || steps.has(name), `engine.ts imports ${name}: the screen must know it`).toBe(true);
    expect(imported.length).toBeGreaterThanOrEqual(known.size);
  });

  it('passes ordinary short texts (what makes it worth having)', () => {
    for (const text of ['Getting started', 'Class Method: Buffer.from(buffer)', 'Why is my build slow?', 'Résumé für Müller — 2024', '会議のメモ', 'sk-learn tips', 'API reference', 'node_modules cleanup']) {
      expect(untouchedByRules(text), text).toBe(true);
    }
  });

  it('passes nothing the rules change: the redactor tests, vendor shapes, token shapes, operator names, cut at every place', () => {
    const texts = corpus();
    expect(texts.length).toBeGreaterThan(20_000);
    let passed = 0;
    for (const text of texts) {
      expectExact(text);
      if (untouchedByRules(text)) passed++;
    }
    // Both sides are exercised: many texts pass, many do not.
    expect(passed).toBeGreaterThan(texts.length / 10);
    expect(passed).toBeLessThan(texts.length);
  });

  it('passes nothing the rules change: the fuzz corpus and planted secrets', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(anyText, planted.map((p) => p.text)), { maxLength: 4 }), fc.constantFrom(' ', '', '\n', ':', '='), (parts, glue) => {
        expectExact(parts.join(glue));
      }),
      { numRuns: 3000 },
    );
  });

  it('passes nothing the rules change: random texts made of every rule\'s triggers', () => {
    const trigger = fc.oneof(
      fc.constantFrom(...TOKEN_LITERALS, ...OPERATOR_NAMES, ...OPERATOR_KEYWORDS, ...FRAGMENTS),
      fc.constantFrom(':', '=', '://', '&', '+', '+4', '-----', '\\', '\\_', '.', '@', '"', "'", ' ', '\n', '\u200b', 'é', 'Bearer '),
      fc.string({ unit: fc.constantFrom(...'aB3dE5gH7jK9mN1pQ3sT_-.'), minLength: 1, maxLength: 40 }),
      fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 16 }),
      fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 30, maxLength: 34 }),
      fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), minLength: 14, maxLength: 18 }),
    );
    fc.assert(
      fc.property(fc.array(trigger, { minLength: 1, maxLength: 8 }), (parts) => {
        expectExact(parts.join(''));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('screen: known secrets are masked whatever the screen says', () => {
  it('masks a known secret that looks like an ordinary word, and its spaced and base64 forms, in a text the screen passes', () => {
    const secret = 'correcthorsebatterystaple';
    rememberSecret(secret);
    // The text around it is one the screen passes; the known secret is masked before the screen judges anything.
    for (const text of [`about ${secret} here`, `about ${[...secret].join(' ')} here`, `about ${Buffer.from(`x${secret}`).toString('base64')} here`]) {
      expect(untouchedByRules(text)).toBe(true);
      const out = redact(text);
      expect(out).not.toContain(secret);
      expect(out).toContain('***');
    }
  });

  it('masks random known secrets planted in texts the screen would pass', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz '), minLength: 12, maxLength: 30 }), fc.constantFrom('Notes on ', 'Title ', ''), (secret, before) => {
        fc.pre(secret.trim().length >= 12);
        forgetSecrets();
        clearRedactCache();
        rememberSecret(secret);
        const out = redact(`${before}${secret.trim()} today`);
        expect(out).not.toContain(secret.trim());
      }),
      { numRuns: 200 },
    );
  });
});
