// The MCP panel's timeline of what agents read (issue 39, the ledger): newest first, filtered by agent and by
// conversation, a page at a time ("Show older"), with the same filter's JSON and CSV downloads.
import { api, ledgerExportUrl, type AgentKey, type FolderSummary, type LedgerFilter, type McpLedgerEntry, type SessionSummary } from './api.js';
import { h } from './dom.js';
import { formatBytes, formatTime } from './format.js';
import { kindLabel, LAUNCH_KEY_ID, ledgerAgent, ledgerWhat } from './mcp-grants-model.js';

/** Rows fetched per page: a screenful or two; older ones on request. */
export const LEDGER_PAGE_ROWS = 50;
/** Conversations offered in the filter, the most recently active first (a store may hold thousands). */
export const MAX_FILTER_CONVERSATIONS = 500;

const failureText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class LedgerView {
  readonly el = h('section', { class: 'mcp-ledger', 'data-testid': 'mcp-ledger', 'aria-labelledby': 'mcp-ledger-heading' });
  private readonly agent = h('select', { id: 'mcp-ledger-agent', 'data-testid': 'mcp-ledger-agent' });
  private readonly conversation = h('select', { id: 'mcp-ledger-conversation', 'data-testid': 'mcp-ledger-conversation' });
  private readonly body = h('tbody', { 'data-testid': 'mcp-ledger-rows' });
  private readonly table = h(
    'table',
    { class: 'mcp-ledger-table' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'When'), h('th', { scope: 'col' }, 'Agent'), h('th', { scope: 'col' }, 'What'), h('th', { scope: 'col', class: 'mcp-num' }, 'Size'))),
    this.body,
  );
  private readonly status = h('p', { class: 'muted small', 'aria-live': 'polite', 'data-testid': 'mcp-ledger-status' });
  private readonly more = h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'mcp-ledger-more', hidden: true }, 'Show older');
  private readonly json = h('a', { class: 'btn btn-small', 'data-testid': 'mcp-ledger-json', download: 'satchel-mcp-ledger.json' }, 'Export JSON');
  private readonly csv = h('a', { class: 'btn btn-small', 'data-testid': 'mcp-ledger-csv', download: 'satchel-mcp-ledger.csv' }, 'Export CSV');
  private next: number | undefined;
  /** Each load's number: an older answer arriving after a newer request is dropped. */
  private generation = 0;
  /** The newest row shown (its ledger id): a read recorded later is added above it (newer()). */
  private newest = 0;

  constructor(
    private keys: AgentKey[],
    private readonly sessions: SessionSummary[],
    /** To name a folder a `list_sessions` asked for by its id. */
    private readonly folders: FolderSummary[] = [],
  ) {
    this.fillConversations();
    this.fillAgents();
    this.agent.addEventListener('change', () => void this.load());
    this.conversation.addEventListener('change', () => void this.load());
    this.more.addEventListener('click', () => void this.load(true));
    this.el.append(
      h('div', { class: 'mcp-section-head' }, h('h3', { id: 'mcp-ledger-heading' }, 'What agents read'), h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'mcp-ledger-refresh', onclick: () => void this.load() }, 'Refresh')),
      h(
        'div',
        { class: 'mcp-ledger-filters' },
        h('div', { class: 'field' }, h('label', { class: 'field-label', for: 'mcp-ledger-agent' }, 'Agent'), this.agent),
        h('div', { class: 'field mcp-grow' }, h('label', { class: 'field-label', for: 'mcp-ledger-conversation' }, 'Conversation'), this.conversation),
        h('div', { class: 'mcp-ledger-export' }, this.json, this.csv),
      ),
      h('div', { class: 'mcp-ledger-scroll', tabindex: 0, role: 'region', 'aria-label': 'Timeline of reads' }, this.table),
      this.status,
      this.more,
    );
  }

  /** The keys changed (one made, renamed, revoked): the agent filter and the rows' names follow, the filter kept. */
  setKeys(keys: AgentKey[]): void {
    this.keys = keys;
    this.fillAgents();
    void this.load();
  }

  private filter(): LedgerFilter {
    return { ...(this.agent.value ? { key_id: this.agent.value } : {}), ...(this.conversation.value ? { session_id: this.conversation.value } : {}) };
  }

  private fillAgents(): void {
    const picked = this.agent.value;
    this.agent.replaceChildren(
      h('option', { value: '' }, 'All agents'),
      ...this.keys.map((k) => h('option', { value: k.id }, k.revoked ? `${k.name} (revoked)` : k.id === 'unnamed' ? k.name : `${k.name} · ${kindLabel(k.kind)}`)),
      h('option', { value: LAUNCH_KEY_ID }, 'Satchel itself'),
    );
    this.agent.value = picked;
  }

  private fillConversations(): void {
    const recent = [...this.sessions].sort((a, b) => b.updated_at.localeCompare(a.updated_at)).slice(0, MAX_FILTER_CONVERSATIONS);
    this.conversation.replaceChildren(h('option', { value: '' }, 'All conversations'), ...recent.map((s) => h('option', { value: s.session_id }, s.title || 'Untitled')));
  }

  private titleOf = (id: string): string | undefined => this.sessions.find((s) => s.session_id === id)?.title;
  private folderOf = (id: string): string | undefined => this.folders.find((f) => f.id === id)?.name;

  /** The first page for the filter (`older`: the next page after the rows shown). */
  async load(older = false): Promise<void> {
    const generation = ++this.generation;
    const filter = this.filter();
    this.json.href = ledgerExportUrl('json', filter);
    this.csv.href = ledgerExportUrl('csv', filter);
    this.status.textContent = 'Loading…';
    try {
      const page = await api.ledger(filter, older ? this.next : undefined, LEDGER_PAGE_ROWS);
      if (generation !== this.generation) return;
      if (!older) {
        this.body.replaceChildren();
        this.newest = page.entries[0]?.id ?? 0;
      }
      this.body.append(...page.entries.map((e) => this.row(e)));
      this.next = page.next;
      this.more.hidden = page.next === undefined;
      this.showCount();
    } catch (err) {
      if (generation !== this.generation) return;
      this.status.textContent = failureText(err);
    }
  }

  /**
   * A read was recorded (the `mcp_read` event, live-updates.ts) while the timeline may be on screen: the reads newer
   * than the newest shown are added above it, so the rows paged in with "Show older", the scroll and the focus stay.
   * More new reads than a page: the first page is read again, as Refresh does (no gap between old and new rows).
   */
  async newer(): Promise<void> {
    // Closed (the dialog or its MCP tab): opening it loads the timeline afresh.
    if (!this.el.isConnected || this.el.getClientRects().length === 0) return;
    const generation = this.generation;
    try {
      const page = await api.ledger(this.filter(), undefined, LEDGER_PAGE_ROWS);
      // A load began meanwhile (a filter changed, Refresh): its answer is the one shown.
      if (generation !== this.generation) return;
      const fresh = page.entries.filter((e) => e.id > this.newest);
      if (fresh.length === 0) return;
      if (fresh.length === page.entries.length && page.next !== undefined) {
        await this.load();
        return;
      }
      this.newest = fresh[0]!.id;
      this.body.prepend(...fresh.map((e) => this.row(e)));
      this.showCount();
    } catch {
      // Refresh and the next read try again; the rows shown stay true as of their load.
    }
  }

  private showCount(): void {
    const shown = this.body.childElementCount;
    this.status.textContent = shown === 0 ? 'Nothing read yet.' : `${shown} ${shown === 1 ? 'read' : 'reads'} shown${this.next !== undefined ? '; older ones below “Show older”' : ''}.`;
    this.table.hidden = shown === 0;
  }

  private row(e: McpLedgerEntry): HTMLElement {
    return h(
      'tr',
      { 'data-testid': 'mcp-ledger-row', 'data-outcome': e.outcome, 'data-key-id': e.key_id },
      h('td', { class: 'mcp-nowrap' }, h('time', { datetime: e.at, title: new Date(e.at).toLocaleString() }, formatTime(e.at))),
      h('td', { 'data-testid': 'mcp-ledger-agent-cell' }, ledgerAgent(e.key_id, this.keys)),
      h('td', { class: 'mcp-ledger-what', 'data-testid': 'mcp-ledger-what' }, ledgerWhat(e, this.titleOf, this.folderOf)),
      h('td', { class: 'mcp-num mcp-nowrap' }, e.outcome === 'ok' ? formatBytes(e.bytes) : '—'),
    );
  }
}
