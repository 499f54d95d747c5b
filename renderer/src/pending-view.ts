// What a preview pane shows before it has its content: "Loading…", or the error that stopped it. The file and
// folder previews both show these the same way, so the e2e specs find them by the same test ids.
import { h } from './dom.js';

export type Pending = { status: 'loading' } | { status: 'error'; message: string };

/** Append the loading line or the error (an alert) to `el`. */
export function renderPending(el: HTMLElement, state: Pending): void {
  if (state.status === 'loading') el.appendChild(h('p', { class: 'muted' }, 'Loading…'));
  else el.appendChild(h('p', { class: 'error-text', role: 'alert', 'data-testid': 'preview-error' }, state.message));
}
