// MCP read receipts in the conversation's header (issue 25): a quiet line saying which MCP client last read
// what of this conversation ("Claude Code read report.docx and 2 more files · 10:42"), not a chat turn and never
// sent to the agent; opening it lists every receipt. The server keeps them (GET /api/session/receipts) and says
// when a new read happens (the `mcp_read` event), so an open window shows it without a reload.
import { api, type McpReceipt } from './api.js';
import { byId, clear, h } from './dom.js';
import { timeOfDay } from './format.js';

/**
 * Reads by the same client this close to its latest one are told in one line ("and 2 more files"): an agent
 * reading a conversation's files one after another within a task step is one thing the person wants to know.
 */
export const GROUP_WINDOW_MS = 5 * 60_000;

export interface ReceiptsState {
  /** The latest read first, as the server sends them. */
  receipts: readonly McpReceipt[];
}

/** "10:42 AM": the local time of day of an ISO time, written as the messages write theirs (issue 38: the receipt
 * said "17:02" beside messages saying "05:02 PM"). */
export function clock(iso: string): string {
  return timeOfDay(new Date(iso));
}

/** What a receipt says was read: the stored name, or the conversation or workspace itself. */
export function readThing(r: Pick<McpReceipt, 'kind' | 'name'>): string {
  if (r.kind === 'conversation') return 'the conversation';
  if (r.kind === 'workspace' && r.name === '') return 'the workspace';
  return r.name;
}

const times = (count: number) => (count > 1 ? ` ${count} times` : '');

/** The line: the latest read, with the same client's other reads close to it counted in. Empty when none. */
export function receiptsLine(receipts: readonly McpReceipt[]): string {
  const latest = receipts[0];
  if (!latest) return '';
  const last = Date.parse(latest.last_at);
  const group = receipts.slice(1).filter((r) => r.client === latest.client && last - Date.parse(r.last_at) <= GROUP_WINDOW_MS);
  const others = new Set(group.map(readThing).filter((thing) => thing !== readThing(latest)));
  const allFiles = group.every((r) => r.kind !== 'conversation' && !(r.kind === 'workspace' && r.name === ''));
  const more = others.size === 0 ? times(latest.count) : ` and ${others.size} more${allFiles ? (others.size === 1 ? ' file' : ' files') : ''}`;
  return `${latest.client} read ${readThing(latest)}${more} · ${clock(latest.last_at)}`;
}

/** One receipt in the full list, and its tooltip (the client's version, the first and last read). */
export function receiptItem(r: McpReceipt): { text: string; title: string } {
  const when = new Date(r.last_at);
  const day = when.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
  const version = r.client_version ? ` ${r.client_version}` : '';
  const span = r.count > 1 ? `, ${r.count} reads from ${new Date(r.first_at).toLocaleString()}` : '';
  return { text: `${r.client} read ${readThing(r)}${times(r.count)} · ${day} ${clock(r.last_at)}`, title: `${r.client}${version}${span}` };
}

export class ReceiptsView {
  private readonly el = byId<HTMLDetailsElement>('mcp-receipts');
  private readonly line = byId('mcp-receipts-line');
  private readonly list = byId<HTMLUListElement>('mcp-receipts-list');
  private drawn: readonly McpReceipt[] | null = null;

  update(state: ReceiptsState): void {
    if (state.receipts === this.drawn) return;
    this.drawn = state.receipts;
    this.el.hidden = state.receipts.length === 0;
    if (state.receipts.length === 0) this.el.open = false;
    this.line.textContent = receiptsLine(state.receipts);
    clear(this.list);
    for (const r of state.receipts) {
      const item = receiptItem(r);
      this.list.appendChild(h('li', { title: item.title }, item.text));
    }
  }
}

/** The receipts of the conversation on screen: read when it is shown and again when an MCP client reads it. */
export class Receipts {
  private readonly view = new ReceiptsView();
  private sessionId: string | null = null;
  /** Bumped per request, so an answer for a conversation left meanwhile is dropped. */
  private asked = 0;

  /** The conversation on screen (null: none). */
  show(sessionId: string | null): void {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this.view.update({ receipts: [] });
    if (sessionId) this.reload();
  }

  /** Read them again: an `mcp_read` event for this conversation, or a reconnect. */
  reload(): void {
    const id = this.sessionId;
    if (!id) return;
    const ask = ++this.asked;
    void api
      .sessionReceipts(id)
      .then(({ receipts }) => {
        if (ask === this.asked && id === this.sessionId) this.view.update({ receipts });
      })
      .catch(() => undefined); // a conversation deleted meanwhile: nothing to show, the list says the rest
  }
}
