// The line under a chip's name that tells what the agent will get from the attachment (issue 25): the server's
// summary (GET /api/attachment/summary), shown by colour AND by an icon and a word, so it never rests on colour
// alone. The chip names this line in its aria-describedby, so a screen reader hears it with the chip.
import { ApiError, api } from './api.js';
import { h, icon } from './dom.js';

export type AgentViewState =
  | { status: 'checking' }
  | { status: 'failed'; error: string }
  | { status: 'ready' | 'partial' | 'unreadable'; text: string };

export const CHECKING_TEXT = 'Checking what the agent gets…';
/** Said under every unreadable summary: what the person can do about it, whatever the reason. */
export const UNREADABLE_HINT = 'To send what it holds: save it as text, a PDF or an image, and attach that.';

const LOOK: Record<AgentViewState['status'], { word: string; icon: readonly string[] }> = {
  checking: { word: 'Checking', icon: ['M12 3a9 9 0 1 0 9 9'] },
  ready: { word: 'Ready', icon: ['M20 6L9 17l-5-5'] },
  partial: { word: 'Partly', icon: ['M12 2L2 20h20z', 'M12 9v5', 'M12 17v.5'] },
  unreadable: { word: 'Not readable', icon: ['M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20z', 'M15 9l-6 6', 'M9 9l6 6'] },
  failed: { word: 'Unknown', icon: ['M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20z', 'M12 8v5', 'M12 16v.5'] },
};

/** The words a state is shown with (the DOM-free part of the line, so unit tests see exactly what a person reads). */
export function agentViewWords(state: AgentViewState): { text: string; hint: string | null } {
  const text =
    state.status === 'checking' ? CHECKING_TEXT
    : state.status === 'failed' ? `Could not check what the agent gets: ${state.error}`
    : `${LOOK[state.status].word}: ${state.text}`;
  return { text, hint: state.status === 'unreadable' ? UNREADABLE_HINT : null };
}

let nextId = 1;

/** One chip's line: `update(state)` redraws it in place; `el.id` is what the chip's aria-describedby names. */
export class AgentViewLine {
  readonly el: HTMLElement;

  constructor(state: AgentViewState = { status: 'checking' }) {
    this.el = h('span', { class: 'agent-view', id: `agent-view-${nextId++}`, 'data-testid': 'agent-view' });
    this.update(state);
  }

  update(state: AgentViewState): void {
    const { text, hint } = agentViewWords(state);
    this.el.dataset.state = state.status;
    const parts: (HTMLElement | SVGElement)[] = [icon([...LOOK[state.status].icon]), h('span', { class: 'agent-view-text', 'data-testid': 'agent-view-text' }, text)];
    if (hint) parts.push(h('span', { class: 'agent-view-hint' }, hint));
    this.el.replaceChildren(...parts);
  }
}

/** Summaries already answered, by session and name: a redrawn chip shows its line at once, without asking again. */
const known = new Map<string, AgentViewState>();
const asked = new Map<string, Promise<AgentViewState>>();

/** `stamp` tells two files of one name apart (a removed upload's name used again): its size, its folder. */
function keyOf(sessionId: string, name: string, stamp: string): string {
  return `${sessionId}\0${name}\0${stamp}`;
}

export function knownAgentView(sessionId: string, name: string, stamp = ''): AgentViewState | undefined {
  return known.get(keyOf(sessionId, name, stamp));
}

/**
 * What the agent will get from the attachment `name` of the session, asked once per name (a failure is asked
 * again next time: it may have been a moment's). Never rejects: a failure is its own state, never "ready".
 */
export function loadAgentView(sessionId: string, name: string, stamp = ''): Promise<AgentViewState> {
  const key = keyOf(sessionId, name, stamp);
  const have = known.get(key);
  if (have) return Promise.resolve(have);
  let pending = asked.get(key);
  if (!pending) {
    pending = api
      .attachmentSummary(sessionId, name)
      .then((v): AgentViewState => {
        const state: AgentViewState = { status: v.state, text: v.text };
        known.set(key, state);
        return state;
      })
      .catch((err: unknown): AgentViewState => ({ status: 'failed', error: err instanceof ApiError ? err.message : 'the server did not answer' }))
      .finally(() => asked.delete(key));
    asked.set(key, pending);
  }
  return pending;
}

/** A line for the attachment `name`, filled in when the summary comes (at once when it is known). */
export function agentViewLineFor(sessionId: string, name: string, stamp = ''): AgentViewLine {
  const have = knownAgentView(sessionId, name, stamp);
  const line = new AgentViewLine(have);
  if (!have) void loadAgentView(sessionId, name, stamp).then((s) => line.update(s));
  return line;
}
