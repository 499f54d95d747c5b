// The content engine's neutral parts (server/content/) as Chat Completions content parts: the one place a file's
// text and images take the agent's wire form. Only `text` and `image_url` exist (Hermes' gateway accepts
// nothing else). Where a text came from is already in its words (a PDF's `--- Page 2 ---`, an archive member's
// header), so a file's consecutive texts from the same member (a PDF's pages) go as one part, joined by lines:
// one part per document, as agents have always had it; each member of an archive stays its own part.
import type { Part } from '../content/index.js';
import type { ContentPart } from './types.js';

export function contentParts(parts: readonly Part[]): ContentPart[] {
  const out: ContentPart[] = [];
  let last: Part | undefined;
  for (const p of parts) {
    switch (p.type) {
      case 'text': {
        const before = out.at(-1);
        if (before?.type === 'text' && last?.type === 'text' && last.from.file === p.from.file && last.from.member === p.from.member) before.text += `\n${p.text}`;
        else out.push({ type: 'text', text: p.text });
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
