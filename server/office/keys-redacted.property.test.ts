// Property (issue 33, finding 5): a key is masked the same way whatever file carries it. Any vendor key, in any
// of the shapes a person writes it (bare, a JSON field in straight or Word's quotes, an assignment, a YAML line),
// in a .txt and in a .docx, .xlsx and .pptx converted to Markdown by the sidecar converter: what Markdown shows
// of the redacted sidecar holds exactly what the redacted text file holds, and no part of the key the mask drops.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redact } from '../redact/index.js';
import { unescapeMarkdown } from '../redact/markdown-escapes.js';
import { convertOfficeBuffer } from './convert.js';
import { buildDocx, buildPptx, buildXlsx, pShape, wPara, wRun, xmlEscape } from './testing/fixtures.js';

const ALNUM = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];
const tail = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...ALNUM), minLength: min, maxLength: max });
/** Vendor keys whose prefix holds `_` or `-` (what the converter escapes, or what a boundary reads). */
const key = fc.oneof(
  tail(20, 36).map((t) => `ghp_${t}`),
  tail(20, 36).map((t) => `github_pat_11${t}`),
  tail(20, 36).map((t) => `sk_live_${t}`),
  tail(20, 36).map((t) => `hf_${t}`),
  tail(20, 36).map((t) => `glpat-${t}`),
  tail(20, 36).map((t) => `xoxb-${t}`),
);
const word = fc.constantFrom('Config', 'deploy', 'Notes', 'prod', 'Ticket');
/** A line as a person types it into a document; Word's quotes are “ ” and, after a non-space, ” ”. */
const line = fc.oneof(
  fc.tuple(word, key, word).map(([a, k, b]) => ({ text: `${a} ${k} ${b}`, key: k })),
  fc.tuple(word, key).map(([a, k]) => ({ text: `${a} "api_key": "${k}"`, key: k })),
  fc.tuple(word, key).map(([a, k]) => ({ text: `${a} “api_key”: “${k}”`, key: k })),
  fc.tuple(word, key).map(([a, k]) => ({ text: `${a} {”token”: ”${k}”}`, key: k })),
  key.map((k) => ({ text: `API_KEY=${k}`, key: k })),
  key.map((k) => ({ text: `password: “${k}”`, key: k })),
);

/** `cut`: where Word split the paragraph into two runs (it does, at any edit), a fraction of its length. */
async function asMarkdown(text: string, format: 'docx' | 'xlsx' | 'pptx', cut: number): Promise<string> {
  const at = Math.floor(cut * text.length);
  if (format === 'docx') return convertOfficeBuffer(await buildDocx(wPara([wRun(text.slice(0, at)), wRun(text.slice(at))])), 'docx');
  if (format === 'xlsx') {
    const cell = `<row r="1"><c r="A1" t="inlineStr"><is><t>${xmlEscape(text)}</t></is></c></row>`;
    return convertOfficeBuffer(await buildXlsx([{ name: 'Keys', sheetData: cell }]), 'xlsx');
  }
  return convertOfficeBuffer(await buildPptx([{ file: 'slide1.xml', shapes: pShape([text]) }]), 'pptx');
}

describe('a key in any file', () => {
  it('is masked in the Office sidecar exactly as in a text file (property)', async () => {
    await fc.assert(
      fc.asyncProperty(line, fc.constantFrom('docx' as const, 'xlsx' as const, 'pptx' as const), fc.double({ min: 0, max: 1, noNaN: true }), async ({ text, key: k }, format, cut) => {
        const plain = redact(text);
        expect(plain).not.toContain(k);
        const markdown = await asMarkdown(text, format, cut);
        const shown = unescapeMarkdown(redact(markdown)).copy;
        expect(shown).toContain(plain);
        expect(shown).not.toContain(k.slice(6, -4));
        expect(redact(markdown).replace(/\\/g, '')).not.toContain(k.slice(6, -4));
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
