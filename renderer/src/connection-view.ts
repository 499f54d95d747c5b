// The live-updates indicator in the sidebar: whether the server's event stream is open. A view of the store's
// `connection` alone, apart from app.ts, which composes the views.
import { byId } from './dom.js';
import type { AppState } from './store.js';

export class ConnectionView {
  readonly el = byId('connection');
  private readonly text = byId('connection-text');

  update(state: AppState): void {
    if (state.connection === 'connecting' || this.el.dataset.status === state.connection) return;
    const text = state.connection === 'live' ? 'Live updates on' : 'Reconnecting…';
    this.el.dataset.status = state.connection;
    this.el.title = text;
    this.text.textContent = text;
  }
}
