// "Let other agents read Satchel (MCP)": the endpoint; the agents, each with its own key and grants
// (mcp-keys-view.ts); the shared MCP token ("Unnamed client", hidden until asked for) with ready-to-paste
// configurations for the clients docs/mcp.md names, each with a Copy button — Regenerate makes a new token (the
// old one stops working at once) and the snippets follow it; and the timeline of what agents read
// (mcp-ledger-view.ts). The server builds the snippets.
import { api, type AgentKey, type FolderSummary, type McpSettings, type SessionSummary } from './api.js';
import { clear, h } from './dom.js';
import { notify } from './toast.js';
import { copy } from './mcp-copy.js';
import { UNNAMED_KEY_ID } from './mcp-grants-model.js';
import { AgentsView } from './mcp-keys-view.js';
import { LedgerView } from './mcp-ledger-view.js';

export { COPY_FEEDBACK_MS } from './mcp-copy.js';

/** The server's own words for a failure (ApiError carries its `error` text). */
const failureText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const HIDDEN_TOKEN = '••••••••';

const CLIENTS: { key: keyof McpSettings['clients']; title: string; where: string }[] = [
  { key: 'claude_code', title: 'Claude Code', where: 'run in a terminal' },
  { key: 'codex', title: 'Codex', where: '~/.codex/config.toml' },
  { key: 'cursor', title: 'Cursor', where: '.cursor/mcp.json (or ~/.cursor/mcp.json)' },
  { key: 'hermes', title: 'Hermes Agent', where: 'config.yaml' },
];

/** The snippet as shown: the token replaced by dots until the person asks to see it (Copy takes the real one). */
export function shownSnippet(snippet: string, token: string, visible: boolean): string {
  return visible || !token ? snippet : snippet.split(token).join(HIDDEN_TOKEN);
}

export class McpPanel {
  private settings: McpSettings | null = null;
  private visible = false;
  private keys: AgentKey[] = [];
  /** The shared token's part, redrawn alone (Show/Hide, Regenerate) so the rest keeps its state and focus. */
  private shared: HTMLElement = h('section');
  private ledger: LedgerView | null = null;

  constructor(private readonly root: HTMLElement) {}

  /** Fetches the endpoint, the token and the agents' keys and draws the panel; the token starts hidden every time. */
  async show(): Promise<void> {
    this.visible = false;
    clear(this.root);
    this.root.appendChild(h('p', { class: 'muted small' }, 'Loading…'));
    let sessions: SessionSummary[];
    let workspaces: string[];
    let folders: FolderSummary[];
    try {
      const [settings, keys, list, roots, folderList] = await Promise.all([api.mcpSettings(), api.agentKeys(), api.sessions(), api.workspaces(), api.folders()]);
      folders = folderList.folders;
      this.settings = settings;
      this.keys = keys.keys;
      sessions = list.sessions;
      workspaces = [...new Set([...roots.workspaces, ...list.sessions.map((x) => x.workspace).filter((w) => w)])];
    } catch (err) {
      this.settings = null;
      clear(this.root);
      this.root.appendChild(h('p', { class: 'error-text', role: 'alert', 'data-testid': 'mcp-error' }, failureText(err)));
      return;
    }
    const s = this.settings;
    clear(this.root);
    const agents = new AgentsView({ keys: this.keys, sessions, workspaces, folders }, (keys) => {
      this.keys = keys;
      this.ledger?.setKeys(keys);
      this.renderShared();
    });
    this.ledger = new LedgerView(this.keys, sessions, folders);
    this.shared = h('section', { class: 'mcp-shared', 'data-testid': 'mcp-shared', 'aria-labelledby': 'mcp-shared-heading' });
    this.root.append(
      h('h2', {}, 'Let other agents read Satchel (MCP)'),
      h(
        'p',
        { class: 'muted small' },
        'Claude Code, Codex, Cursor, Hermes Agent and any other MCP client can list and read what you drop and dictate here. They read; they never write. Give each agent its own key: you choose what it may read, pause or revoke it alone, and see below everything it read.',
      ),
      h('div', { class: 'field' }, h('span', { class: 'field-label' }, 'Endpoint'), h('code', { class: 'mcp-value', 'data-testid': 'mcp-url' }, s.url)),
      agents.el,
      this.ledger.el,
      this.shared,
    );
    this.renderShared();
    void this.ledger.load();
  }

  /** A read was recorded (live-updates.ts): the timeline, if on screen, shows it. */
  readRecorded(): void {
    void this.ledger?.newer();
  }

  /** The shared token ("Unnamed client"): its value, its snippets and Regenerate, while it is not retired. */
  private renderShared(): void {
    const s = this.settings;
    if (!s) return;
    const hadFocus = this.shared.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.testid : undefined;
    const unnamed = this.keys.find((k) => k.id === UNNAMED_KEY_ID);
    const heading = h('h3', { id: 'mcp-shared-heading' }, 'Shared token (Unnamed client)');
    if (unnamed?.revoked) {
      this.shared.replaceChildren(heading, h('p', { class: 'muted small', 'data-testid': 'mcp-shared-retired' }, 'Retired: the shared token no longer opens Satchel. Agents connect with their own keys.'));
      return;
    }
    const tokenText = this.visible ? s.token : HIDDEN_TOKEN;
    this.shared.replaceChildren(
      heading,
      h('p', { class: 'muted small' }, 'The token every agent used before agents had their own keys. It stays the same across restarts until you regenerate it, and keeps working until you retire “Unnamed client” under Agents.'),
      h(
        'div',
        { class: 'field' },
        h('span', { class: 'field-label' }, 'Token'),
        h(
          'div',
          { class: 'mcp-token-row' },
          h('code', { class: 'mcp-value', 'data-testid': 'mcp-token', 'data-visible': this.visible ? '1' : '0' }, tokenText),
          h(
            'button',
            {
              class: 'btn btn-small',
              type: 'button',
              'data-testid': 'mcp-token-toggle',
              'aria-pressed': this.visible ? 'true' : 'false',
              onclick: () => {
                this.visible = !this.visible;
                this.renderShared();
              },
            },
            this.visible ? 'Hide' : 'Show',
          ),
        ),
      ),
      ...CLIENTS.map((c) => this.client(s, c)),
      h(
        'div',
        { class: 'mcp-regenerate' },
        h('button', { class: 'btn', type: 'button', 'data-testid': 'mcp-regenerate', onclick: () => void this.regenerate() }, 'Regenerate token'),
        h('span', { class: 'muted small' }, 'Agents configured with the current token stop working until they get the new one.'),
      ),
    );
    if (hadFocus) this.shared.querySelector<HTMLElement>(`[data-testid="${CSS.escape(hadFocus)}"]`)?.focus();
  }

  private client(s: McpSettings, c: (typeof CLIENTS)[number]): HTMLElement {
    const snippet = s.clients[c.key];
    const button = h('button', { class: 'btn btn-small', type: 'button', 'data-testid': `mcp-copy-${c.key}` }, 'Copy');
    button.addEventListener('click', () => void copy(button, () => snippet));
    return h(
      'section',
      { class: 'mcp-client', 'data-testid': `mcp-client-${c.key}` },
      h('div', { class: 'mcp-client-head' }, h('h4', { class: 'field-label' }, c.title, ' ', h('span', { class: 'muted' }, `— ${c.where}`)), button),
      // Focusable: a snippet wider than the panel scrolls, and a keyboard must be able to scroll it too.
      h('pre', { class: 'mcp-snippet plain', 'data-testid': `mcp-snippet-${c.key}`, tabindex: 0 }, shownSnippet(snippet, s.token, this.visible)),
    );
  }

  private async regenerate(): Promise<void> {
    if (!window.confirm('Make a new MCP token? Agents configured with the current one stop working until you paste the new configuration.')) return;
    try {
      this.settings = await api.regenerateMcpToken();
      this.renderShared();
      notify('New MCP token made. Paste the new configuration into your agents.');
    } catch (err) {
      notify(failureText(err), 'error');
    }
  }
}
