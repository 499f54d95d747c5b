// The content engine's neutral parts (server/content/) as Chat Completions content parts: the one place a file's
// text and images take the agent's wire form. Only `text` and `image_url` exist (Hermes' gateway accepts
// nothing else); where a text came from (page, member) is already in its words, so it is not sent twice.
import type { Part } from '../content/index.js';
import type { ContentPart } from './types.js';

export function contentParts(parts: readonly Part[]): ContentPart[] {
  return parts.map((p): ContentPart => {
    switch (p.type) {
      case 'text':
        return { type: 'text', text: p.text };
      case 'image':
        return { type: 'image_url', image_url: { url: `data:${p.mime};base64,${p.data}` } };
      default:
        return p satisfies never;
    }
  });
}
