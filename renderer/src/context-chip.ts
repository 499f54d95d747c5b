// A thread chip's second line (issue 36): what the agent had of that document in the last turn ("Last turn:
// whole", "Last turn: passages: pages 2–3", "Last turn: not sent (budget)"), beside the line of what its reader
// gets (agent-view.ts), which stays as it is. A chip the last turn did not list shows no such line.
// The thread keeps a row's element while the row is unchanged, so a newer turn's report cannot redraw the chips:
// ChipContextView holds the report of the session on screen and rewrites every line in place when it changes;
// a chip drawn later (a row scrolled into the window) reads it when it is made.
import { chipContextLabel, chipContextText, documentFor, lastReport, type DocOrigin } from './context-report.js';
import type { ContextDocument, ContextReport } from './api.js';
import { h, icon } from './dom.js';
import type { AppState } from './store.js';

const LINE_CLASS = 'chip-context';
/** Each state by an icon as well as by its word: never by colour alone. */
const ICON: Record<ContextDocument['state'], string[]> = {
  whole: ['M20 6L9 17l-5-5'],
  passages: ['M4 6h16', 'M4 12h10', 'M4 18h7'],
  not_sent: ['M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20z', 'M8 12h8'],
  unreadable: ['M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20z', 'M15 9l-6 6', 'M9 9l6 6'],
};

/** The report the lines show: the last turn's of the session on screen. */
let shown: ContextReport | null = null;
let nextId = 1;

/** Draw `line` for `doc` (or empty and hidden when the last turn did not list the chip's document). */
function fill(line: HTMLElement, doc: ContextDocument | undefined): void {
  if (!doc) {
    line.hidden = true;
    delete line.dataset.state;
    line.replaceChildren();
    return;
  }
  line.hidden = false;
  line.dataset.state = doc.state;
  line.title = chipContextLabel(doc);
  line.replaceChildren(icon(ICON[doc.state]), h('span', { class: 'chip-context-text', 'data-testid': 'chip-context-text' }, chipContextText(doc)));
}

function docOf(line: HTMLElement): ContextDocument | undefined {
  const names = JSON.parse(line.dataset.names ?? '[]') as string[];
  return documentFor(shown, names, line.dataset.origin as DocOrigin);
}

/**
 * The line of a chip named `names` (its file's name; an extraction's archive and folder names) from `origin`:
 * its id goes in the chip button's aria-describedby, so a screen reader hears the state with the chip.
 */
export function chipContextLine(names: readonly string[], origin: DocOrigin): HTMLElement {
  const line = h('span', { class: LINE_CLASS, id: `chip-context-${nextId++}`, 'data-testid': 'chip-context', 'data-origin': origin, 'data-names': JSON.stringify(names) });
  fill(line, docOf(line));
  return line;
}

/** Follows the store: when the last turn's report of the session on screen changes, every drawn line follows. */
export class ChipContextView {
  /** What the report was last read from: a turn's frames change neither, so a token costs no walk of the lines. */
  private from: unknown[] = [];

  constructor(private readonly root: ParentNode = document) {}

  update(state: Pick<AppState, 'session' | 'turn'>): void {
    const inputs = [state.session?.session_id, state.session?.messages, state.turn?.sessionId, state.turn?.context];
    if (inputs.every((v, i) => v === this.from[i])) return;
    this.from = inputs;
    shown = lastReport(state);
    for (const line of this.root.querySelectorAll<HTMLElement>(`.${LINE_CLASS}`)) fill(line, docOf(line));
  }
}
