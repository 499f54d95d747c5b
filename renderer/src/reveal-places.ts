// Where the masks of a message (POST /api/session/masks: offsets in the text as served) are in what the row drew:
// pure, so it is tested in node (reveal-places.test.ts). Markdown drops and moves characters (emphasis marks,
// fences, escapes), so offsets do not carry over to the drawn text; each mask's characters are found in the drawn
// text nodes in order instead, one after the other, and a mask Markdown took apart (across two nodes) or turned into
// something else is left without a "Show".

export interface MaskPlace {
  /** UTF-16 offsets in the message's text as GET /api/session served it. */
  start: number;
  end: number;
}

export interface Placement {
  /** Which of the drawn text nodes holds the mask. */
  node: number;
  /** Where in that node's text it starts, and its length. */
  offset: number;
  length: number;
  /** The mask's place in the served text: what a reveal names. */
  start: number;
}

/** Shapes every mask the server makes contains (redact/mask.ts): a text with none has nothing to ask about. */
const MASK_SIGNS = ['***', '...', '****', '[REDACTED PRIVATE KEY]'];

export function mayHoldMask(text: string): boolean {
  return MASK_SIGNS.some((sign) => text.includes(sign));
}

/** Each mask of `text` found, in order, inside one of the drawn `nodes` (their texts, in document order). */
export function placeMasks(text: string, masks: readonly MaskPlace[], nodes: readonly string[]): Placement[] {
  const out: Placement[] = [];
  let node = 0;
  let from = 0;
  for (const m of masks) {
    const mask = text.slice(m.start, m.end);
    if (!mask) continue;
    // The first node at or after the cursor holding the mask whole.
    for (let n = node, at = from; n < nodes.length; n++, at = 0) {
      const offset = nodes[n]!.indexOf(mask, at);
      if (offset < 0) continue;
      out.push({ node: n, offset, length: mask.length, start: m.start });
      node = n;
      from = offset + mask.length;
      break;
    }
  }
  return out;
}
