// The content engine's neutral parts (server/content/) as Chat Completions content parts: the one place a file's
// text and images take the agent's wire form. Only `text` and `image_url` exist (Hermes' gateway accepts
// nothing else). Where a text came from is already in its words (a PDF's `--- Page 2 ---`, an archive member's
// header), so a file's consecutive texts from the same member (a PDF's pages) go as one part, joined by lines:
// one part per document, as agents have always had it; each member of an archive stays its own part.
import type { Part } from '../content/index.js';
import type { ContentPart } from './types.js';

/**
 * Characters of one text part at most. Hermes' gateway cuts every text part (and a string content) at 65,536
 * characters without a word (gateway/platforms/api_server.py, MAX_NORMALIZED_TEXT_LENGTH), so a long document
 * goes as several parts, each whole, and a PDF's pages stay one part only while they fit.
 */
export const MAX_TEXT_PART_CHARS = 60_000;

export function contentParts(parts: readonly Part[]): ContentPart[] {
  const out: ContentPart[] = [];
  let last: Part | undefined;
  for (const p of parts) {
    switch (p.type) {
      case 'text': {
        const before = out.at(-1);
        const same = before?.type === 'text' && last?.type === 'text' && last.from.file === p.from.file && last.from.member === p.from.member;
        if (same && before.text.length + 1 + p.text.length <= MAX_TEXT_PART_CHARS) before.text += `\n${p.text}`;
        else for (let at = 0; at < Math.max(1, p.text.length); at += MAX_TEXT_PART_CHARS) out.push({ type: 'text', text: p.text.slice(at, at + MAX_TEXT_PART_CHARS) });
        break;
      }
      case 'image':
        out.push({ type: 'image_url', image_url: { url: `data:${p.mime};base64,${p.data}` } });
        break;
      default:
        p satisfies never;
    }
    last = p;
  }
  return out;
}
