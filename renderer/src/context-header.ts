// The line over the thread (issue 36): what the agent had of the conversation's documents in the last turn
// ("The agent has 3 of 5 documents whole") and a button that opens the list of every document with its state and
// where it came from, the workspace's line and, with Hermes keeping the history, that the earlier documents are
// in it. Shown only once a turn has reported on a conversation with documents. The list is a panel under the line
// (not a modal): focus moves into it, Escape or a click elsewhere closes it, and focus goes back to the button.
import type { ContextReport } from './api.js';
import { headerModel, lastReport, type ContextHeaderModel } from './context-report.js';
import { byId, h } from './dom.js';
import type { AppState } from './store.js';

export const OPEN_LIST = 'Show documents';
export const CLOSE_LIST = 'Hide documents';

export class ContextHeaderView {
  readonly el = byId('context-header');
  private readonly summary = h('span', { class: 'context-summary', 'data-testid': 'context-summary', role: 'status' });
  private readonly toggle = h('button', { class: 'link-btn', type: 'button', 'data-testid': 'context-toggle', 'aria-expanded': 'false', 'aria-controls': 'context-list' }, OPEN_LIST);
  private readonly panel = h('div', { id: 'context-list', class: 'context-list', 'data-testid': 'context-list', role: 'region', 'aria-label': 'What the agent has of each document', tabindex: '-1', hidden: true });
  private drawnFrom: unknown[] = [];
  private model: ContextHeaderModel | null = null;

  constructor() {
    this.el.append(h('p', { class: 'context-line' }, this.summary, this.toggle), this.panel);
    this.toggle.addEventListener('click', () => (this.panel.hidden ? this.open() : this.close(true)));
    this.el.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.panel.hidden) {
        e.preventDefault();
        e.stopPropagation();
        this.close(true);
      }
    });
    // A click outside the line and its list closes the list, leaving focus where the click put it.
    document.addEventListener('pointerdown', (e) => {
      if (!this.panel.hidden && !this.el.contains(e.target as Node)) this.close(false);
    });
  }

  update(state: Pick<AppState, 'session' | 'turn'>): void {
    const inputs = [state.session?.session_id, state.session?.messages, state.turn?.sessionId, state.turn?.context];
    if (inputs.every((v, i) => v === this.drawnFrom[i])) return;
    const sameSession = inputs[0] === this.drawnFrom[0];
    this.drawnFrom = inputs;
    this.show(lastReport(state), sameSession);
  }

  private show(report: ContextReport | null, sameSession: boolean): void {
    const model = headerModel(report);
    this.model = model;
    this.el.hidden = !model;
    if (!model) {
      this.close(false);
      return;
    }
    this.summary.textContent = model.summary;
    // Another conversation's list is not left open over this one; a newer turn's list is redrawn in place.
    if (!sameSession) this.close(false);
    else if (!this.panel.hidden) this.drawList(model);
  }

  private open(): void {
    if (!this.model) return;
    this.drawList(this.model);
    this.panel.hidden = false;
    this.toggle.setAttribute('aria-expanded', 'true');
    this.toggle.textContent = CLOSE_LIST;
    this.panel.focus();
  }

  private close(refocus: boolean): void {
    const wasOpen = !this.panel.hidden;
    this.panel.hidden = true;
    this.toggle.setAttribute('aria-expanded', 'false');
    this.toggle.textContent = OPEN_LIST;
    if (wasOpen && refocus) this.toggle.focus();
  }

  private drawList(model: ContextHeaderModel): void {
    const items = model.items.map((item) =>
      h(
        'li',
        { class: 'context-item', 'data-testid': 'context-item', 'data-state': item.state },
        h('span', { class: 'context-item-name', 'data-testid': 'context-item-name' }, item.name),
        h('span', { class: 'context-item-state', 'data-testid': 'context-item-state' }, item.words),
        h('span', { class: 'context-item-origin muted', 'data-testid': 'context-item-origin' }, item.origin),
      ),
    );
    const parts = [
      model.workspace ? h('p', { class: 'context-note', 'data-testid': 'context-workspace' }, model.workspace) : null,
      model.history ? h('p', { class: 'context-note', 'data-testid': 'context-history' }, model.history) : null,
      items.length ? h('ul', { class: 'context-items', 'aria-label': 'Documents' }, items) : null,
      h('button', { class: 'link-btn context-close', type: 'button', 'data-testid': 'context-close', onclick: () => this.close(true) }, 'Close'),
    ];
    this.panel.replaceChildren(...parts.filter((p) => p !== null));
  }
}
