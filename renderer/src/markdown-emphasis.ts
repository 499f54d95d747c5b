// CommonMark's emphasis ("process emphasis", with the rule of 3 and the openers-bottom table) over the line as a
// doubly linked list of cells, so a matched emphasis takes its content in O(1), and the list back as a tree.
// Apart from markdown-inline.ts, which reads the line into cells and delimiters: this is the one algorithm the
// CommonMark spec gives in pseudocode, kept whole in one file beside its inputs' shapes.
import type { Inline, WorkMeter } from './markdown-inline.js';

/** Deepest nesting kept: deeper emphasis is flattened back to its markers, so hostile input can't blow the stack. */
export const MAX_DEPTH = 8;

/** One piece of the line in a doubly linked list, so a matched emphasis can take its content in O(1). */
export interface Cell {
  kind: 'text' | 'delim' | 'atom' | 'inlines' | 'em' | 'strong';
  text: string;
  /** A delimiter run's (or an emphasis's) character and how many of the run are still unmatched. */
  char: string;
  count: number;
  nodes: Inline[];
  first: Cell | null;
  last: Cell | null;
  prev: Cell | null;
  next: Cell | null;
}

export interface Delimiter {
  cell: Cell;
  char: string;
  /** The run's length before any matching: the rule of 3 looks at it. */
  orig: number;
  canOpen: boolean;
  canClose: boolean;
  prev: Delimiter | null;
  next: Delimiter | null;
}

export function cell(kind: Cell['kind'], init: Partial<Cell> = {}): Cell {
  return { kind, text: '', char: '', count: 0, nodes: [], first: null, last: null, prev: null, next: null, ...init };
}

function removeDelimiter(d: Delimiter): void {
  if (d.prev) d.prev.next = d.next;
  if (d.next) d.next.prev = d.prev;
}

function unlink(c: Cell): void {
  if (c.prev) c.prev.next = c.next;
  if (c.next) c.next.prev = c.prev;
  c.prev = c.next = null;
}

/** CommonMark's "process emphasis" over the whole delimiter stack (top is its last entry). */
export function processEmphasis(top: Delimiter | null, meter: WorkMeter): void {
  let closer = top;
  while (closer?.prev) closer = closer.prev;
  // Per closer kind, the lowest delimiter a new search may reach: below it a search already failed.
  const openersBottom = new Map<string, Delimiter | null>();
  while (closer) {
    meter.steps++;
    if (!closer.canClose) {
      closer = closer.next;
      continue;
    }
    const key = `${closer.char}${closer.canOpen ? 1 : 0}${closer.orig % 3}`;
    const bottom = openersBottom.get(key) ?? null;
    let opener = closer.prev;
    let found = false;
    while (opener && opener !== bottom) {
      meter.steps++;
      const oddMatch = (closer.canOpen || opener.canClose) && closer.orig % 3 !== 0 && (opener.orig + closer.orig) % 3 === 0;
      if (opener.char === closer.char && opener.canOpen && !oddMatch) {
        found = true;
        break;
      }
      opener = opener.prev;
    }
    const oldCloser = closer;
    if (found && opener) {
      const use = opener.cell.count >= 2 && closer.cell.count >= 2 ? 2 : 1;
      opener.cell.count -= use;
      closer.cell.count -= use;
      const emph = cell(use === 2 ? 'strong' : 'em', { char: closer.char });
      // Everything between the two runs becomes the emphasis's content, moved as one segment.
      if (opener.cell.next !== closer.cell) {
        emph.first = opener.cell.next;
        emph.last = closer.cell.prev;
        if (emph.first) emph.first.prev = null;
        if (emph.last) emph.last.next = null;
      }
      emph.prev = opener.cell;
      emph.next = closer.cell;
      opener.cell.next = emph;
      closer.cell.prev = emph;
      // Delimiters inside the emphasis can no longer match anything outside it.
      for (let d = opener.next; d && d !== closer; d = d.next) meter.steps++;
      opener.next = closer;
      closer.prev = opener;
      if (opener.cell.count === 0) {
        unlink(opener.cell);
        removeDelimiter(opener);
      }
      if (closer.cell.count === 0) {
        unlink(closer.cell);
        const next = closer.next;
        removeDelimiter(closer);
        closer = next;
      }
    } else {
      openersBottom.set(key, oldCloser.prev);
      closer = oldCloser.next;
      if (!oldCloser.canOpen) removeDelimiter(oldCloser);
    }
  }
}

function pushText(out: Inline[], text: string): void {
  if (!text) return;
  const last = out[out.length - 1];
  if (last?.type === 'text') last.text += text;
  else out.push({ type: 'text', text });
}

/** The linked cells as a tree, iteratively (emphasis can nest as deep as the line is long). */
export function toInlines(head: Cell | null, depth: number, meter: WorkMeter): Inline[] {
  const root: Inline[] = [];
  const stack: Array<{ at: Cell | null; out: Inline[]; depth: number; suffix: string }> = [{ at: head, out: root, depth, suffix: '' }];
  while (stack.length > 0) {
    meter.steps++;
    const frame = stack[stack.length - 1];
    if (!frame) break;
    const c = frame.at;
    if (!c) {
      stack.pop();
      pushText(frame.out, frame.suffix);
      continue;
    }
    frame.at = c.next;
    if (c.kind === 'text') pushText(frame.out, c.text);
    else if (c.kind === 'delim') pushText(frame.out, c.char.repeat(c.count));
    else if (c.kind === 'atom') frame.out.push(...c.nodes);
    else if (c.kind === 'inlines') {
      for (const node of c.nodes) {
        if (node.type === 'text') pushText(frame.out, node.text);
        else frame.out.push(node);
      }
    } else if (frame.depth < MAX_DEPTH) {
      const node: Inline = c.kind === 'em' ? { type: 'em', children: [] } : { type: 'strong', children: [] };
      frame.out.push(node);
      stack.push({ at: c.first, out: node.children, depth: frame.depth + 1, suffix: '' });
    } else {
      const marker = c.char.repeat(c.kind === 'em' ? 1 : 2);
      pushText(frame.out, marker);
      stack.push({ at: c.first, out: frame.out, depth: frame.depth, suffix: marker });
    }
  }
  return root;
}
