// highlight.js answers with HTML (`<span class="hljs-keyword">const</span> x &lt; 1`). The page never parses
// HTML from anywhere (dom.ts), so this reads exactly that shape — spans with a class, their closing tags, the
// five entities highlight.js escapes, and text — into a tree the view builds with createElement and text
// nodes. Anything else (another tag, an attribute, an unknown entity) means the answer is not what we expect:
// null, and the block stays plain text. One pass over the string, each character looked at once.

export type Token = string | { cls: string; children: Token[] };

/** Deepest span nesting kept (highlight.js nests a handful: a sub-language inside a string inside a tag). */
export const MAX_TOKEN_DEPTH = 32;

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'" };
const OPEN = /^<span class="([A-Za-z0-9_ -]{1,100})">/;
const CLOSE = '</span>';

export function highlightTree(html: string): Token[] | null {
  const root: Token[] = [];
  const stack: Token[][] = [root];
  let text = '';
  const flush = () => {
    if (text) stack[stack.length - 1]?.push(text);
    text = '';
  };
  let i = 0;
  while (i < html.length) {
    const c = html[i];
    if (c === '&') {
      const end = html.indexOf(';', i);
      const entity = end !== -1 && end - i <= 6 ? ENTITIES[html.slice(i, end + 1)] : undefined;
      if (entity === undefined) return null;
      text += entity;
      i = end + 1;
      continue;
    }
    if (c === '<') {
      flush();
      if (html.startsWith(CLOSE, i)) {
        if (stack.length === 1) return null;
        stack.pop();
        i += CLOSE.length;
        continue;
      }
      // A match bounded to the tag's own length, so a long line costs no more than its characters.
      const m = OPEN.exec(html.slice(i, i + 130));
      if (!m || stack.length > MAX_TOKEN_DEPTH) return null;
      const node: Token = { cls: m[1] ?? '', children: [] };
      stack[stack.length - 1]?.push(node);
      stack.push(node.children);
      i += m[0].length;
      continue;
    }
    if (c === '>' || c === '"') return null;
    let j = i + 1;
    while (j < html.length && html[j] !== '<' && html[j] !== '&' && html[j] !== '>' && html[j] !== '"') j++;
    text += html.slice(i, j);
    i = j;
  }
  flush();
  return stack.length === 1 ? root : null;
}

/** The text a tree spells (equal to the code highlighted: tests check nothing is lost or added). */
export function tokenText(tokens: readonly Token[]): string {
  return tokens.map((t) => (typeof t === 'string' ? t : tokenText(t.children))).join('');
}
