// A turn that ended without an answer, as the thread shows it, live and after a reload alike. A failure: one
// sentence of what happened, one of what to do, and the button that does it (Agent settings on its Chat agent
// tab, or Try again). A stop is no failure: a quiet line ("Stopped by you · 12:03"), not a message, not red.
import type { ChatErrorAction, StoppedBy } from './api.js';
import { h } from './dom.js';
import { formatTime } from './format.js';

/** Dispatched on `document` to open Agent settings on its Chat agent tab (agent-settings.ts listens). */
export const OPEN_AGENT_SETTINGS = 'satchel:open-agent-settings';
/** The button's words: the gear is "Agent settings", its tab "Chat agent" (index.html). */
export const AGENT_SETTINGS_BUTTON = 'Open Chat agent settings';
export const RETRY_BUTTON = 'Try again';

export interface Failure {
  /** What happened. */
  message: string;
  /** What to do; absent on rows stored before Satchel said it. */
  hint?: string;
  action?: ChatErrorAction;
}

/** The stop marker's words: who stopped the turn, and when (the page's usual time). */
export function stopText(by: StoppedBy, time: number | undefined): string {
  const who = by === 'shutdown' ? 'Stopped when Satchel shut down' : 'Stopped by you';
  const when = formatTime(time);
  return when ? `${who} · ${when}` : who;
}

export function openAgentSettings(): void {
  document.dispatchEvent(new CustomEvent(OPEN_AGENT_SETTINGS));
}

/** A thin line between the turns: `extra` (Regenerate, when offered) at its end. */
export function stopMarker(by: StoppedBy, time: number | undefined, ...extra: (HTMLElement | null)[]): HTMLElement {
  return h(
    'div',
    { class: 'stop-marker small muted', role: 'note', 'data-testid': 'stop-marker', 'data-stopped-by': by },
    h('span', { class: 'stop-marker-text' }, stopText(by, time)),
    ...extra,
  );
}

/** The failure's button: settings always; Try again only where the turn may be sent again (`retry`). */
function actionButton(action: ChatErrorAction | undefined, retry: (() => void) | undefined): HTMLElement | null {
  if (action === 'agent_settings') {
    return h('button', { class: 'btn error-action', type: 'button', 'data-testid': 'error-action', 'data-action': action, onclick: openAgentSettings }, AGENT_SETTINGS_BUTTON);
  }
  if (action === 'retry' && retry) {
    return h('button', { class: 'btn error-action', type: 'button', 'data-testid': 'error-action', 'data-action': action, onclick: retry }, RETRY_BUTTON);
  }
  return null;
}

export function failureBox(failure: Failure, retry?: () => void): HTMLElement {
  return h(
    'div',
    { class: 'turn-error', role: 'alert', 'data-testid': 'turn-error' },
    h('p', { class: 'error-text', 'data-testid': 'error-text' }, failure.message),
    failure.hint ? h('p', { class: 'small', 'data-testid': 'error-hint' }, failure.hint) : null,
    actionButton(failure.action, retry),
  );
}
