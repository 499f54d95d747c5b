// The settings drawer's list of saved agent connections (docs/API.md, "Agent connections"): each with its name,
// address and whether it is the default, and Edit (the dialog's fields then show it), Make default and Delete
// (asked again in place: a connection's key goes with it). No key is ever on the page, only `has_api_key`.
import { api, type AgentConnection, type AgentConnectionsResponse } from './api.js';
import { clear, h } from './dom.js';

export interface ConnectionListEvents {
  /** The fields should show connection `id`. */
  edit(id: string): void;
  /** The server's list after a change made here (deleted, default moved). */
  changed(list: AgentConnectionsResponse): void;
  /** A change the server refused: the dialog says why. */
  failed(err: unknown): void;
}

/** "Work box — 127.0.0.1:8642": what tells two connections apart. */
export function connectionLabel(c: Pick<AgentConnection, 'name' | 'base_url'>): string {
  const { name, host } = connectionParts(c);
  return name ? `${name} — ${host}` : host;
}

/** The name (absent when it is just the host) and the host with its port: drawn apart, so that a narrow list cuts
 * the name and never the port, which is what tells two local agents apart (issue 38: "127.0.0.1:310…"). */
export function connectionParts(c: Pick<AgentConnection, 'name' | 'base_url'>): { name?: string; host: string } {
  let host = c.base_url ?? '';
  try {
    host = new URL(host).host;
  } catch {
    // shown as saved
  }
  return c.name && c.name !== host ? { name: c.name, host } : { host };
}

export class ConnectionList {
  private list: AgentConnectionsResponse | null = null;
  private current: string | undefined;
  /** The connection whose Delete was pressed once: its row asks again. */
  private confirming: string | undefined;

  constructor(
    private readonly el: HTMLUListElement,
    private readonly events: ConnectionListEvents,
  ) {}

  find(id: string): AgentConnection | undefined {
    return this.list?.connections.find((c) => c.id === id);
  }

  show(list: AgentConnectionsResponse | null): void {
    this.list = list;
    this.confirming = undefined;
    this.draw();
  }

  /** The row the fields edit is marked. */
  mark(id: string | undefined): void {
    this.current = id;
    this.draw();
  }

  private draw(): void {
    clear(this.el);
    for (const c of this.list?.connections ?? []) this.el.appendChild(this.row(c));
  }

  private row(c: AgentConnection): HTMLElement {
    const attrs = { class: 'agent-connection-item', 'data-testid': 'agent-connection-item', 'data-id': c.id, 'aria-current': String(c.id === this.current) };
    if (this.confirming === c.id) {
      return h(
        'li',
        attrs,
        h('span', { class: 'agent-connection-label', 'data-testid': 'agent-connection-confirm' }, `Delete “${c.name}” and its saved key?`),
        h('button', { class: 'btn btn-small', type: 'button', onclick: () => this.ask(undefined) }, 'Keep'),
        h('button', { class: 'btn btn-small btn-danger', type: 'button', 'data-testid': 'agent-connection-delete-confirm', onclick: () => void this.run(() => api.deleteAgentConnection(c.id)) }, 'Delete'),
      );
    }
    const parts = connectionParts(c);
    return h(
      'li',
      attrs,
      h(
        'span',
        { class: 'agent-connection-label', title: c.base_url ?? '' },
        ...(parts.name ? [h('span', { class: 'agent-connection-name' }, parts.name), ' — '] : []),
        h('span', { class: 'agent-connection-host', 'data-testid': 'agent-connection-host' }, parts.host),
      ),
      c.is_default ? h('span', { class: 'badge', 'data-testid': 'agent-connection-default' }, 'default') : null,
      c.has_api_key ? h('span', { class: 'badge muted' }, 'key saved') : null,
      h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'agent-connection-edit', onclick: () => this.events.edit(c.id) }, 'Edit'),
      c.is_default
        ? null
        : h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'agent-connection-make-default', onclick: () => void this.run(() => api.defaultAgentConnection(c.id)) }, 'Make default'),
      c.is_default
        ? null
        : h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'agent-connection-delete', onclick: () => this.ask(c.id) }, 'Delete'),
    );
  }

  private ask(id: string | undefined): void {
    this.confirming = id;
    this.draw();
  }

  private async run(change: () => Promise<AgentConnectionsResponse>): Promise<void> {
    try {
      const list = await change();
      this.show(list);
      this.events.changed(list);
    } catch (err) {
      this.events.failed(err);
    }
  }
}
