// "Let other agents read Satchel (MCP)": the endpoint, the persistent MCP token (hidden until asked for) and
// ready-to-paste configurations for the clients docs/mcp.md names, each with a Copy button; Regenerate makes a
// new token (the old one stops working at once) and the snippets follow it. The server builds the snippets.
import { api, type McpSettings } from './api.js';
import { clear, h } from './dom.js';
import { notify } from './toast.js';

/** The server's own words for a failure (ApiError carries its `error` text). */
const failureText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** How long a Copy button says "Copied" (or that copying failed) before it reads "Copy" again. */
export const COPY_FEEDBACK_MS = 2_000;
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

async function copy(button: HTMLButtonElement, text: () => string): Promise<void> {
  let done = false;
  try {
    await navigator.clipboard.writeText(text());
    done = true;
  } catch {
    // no clipboard permission (or an insecure context): the button says so; the text can still be selected
  }
  button.textContent = done ? 'Copied' : 'Copy failed';
  button.dataset.state = done ? 'copied' : 'failed';
  setTimeout(() => {
    button.textContent = 'Copy';
    delete button.dataset.state;
  }, COPY_FEEDBACK_MS);
}

export class McpPanel {
  private settings: McpSettings | null = null;
  private visible = false;

  constructor(private readonly root: HTMLElement) {}

  /** Fetches the endpoint and token and draws the panel; the token starts hidden every time. */
  async show(): Promise<void> {
    this.visible = false;
    clear(this.root);
    this.root.appendChild(h('p', { class: 'muted small' }, 'Loading…'));
    try {
      this.settings = await api.mcpSettings();
    } catch (err) {
      this.settings = null;
      clear(this.root);
      this.root.appendChild(h('p', { class: 'error-text', role: 'alert', 'data-testid': 'mcp-error' }, failureText(err)));
      return;
    }
    this.render();
  }

  private render(): void {
    const s = this.settings;
    if (!s) return;
    clear(this.root);
    const tokenText = this.visible ? s.token : HIDDEN_TOKEN;
    this.root.append(
      h('h2', {}, 'Let other agents read Satchel (MCP)'),
      h(
        'p',
        { class: 'muted small' },
        'Claude Code, Codex, Cursor, Hermes Agent and any other MCP client can list and read what you drop and dictate here. They read; they never write. The token below opens only this endpoint, and stays the same across restarts until you regenerate it.',
      ),
      h('div', { class: 'field' }, h('span', { class: 'field-label' }, 'Endpoint'), h('code', { class: 'mcp-value', 'data-testid': 'mcp-url' }, s.url)),
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
                this.render();
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
  }

  private client(s: McpSettings, c: (typeof CLIENTS)[number]): HTMLElement {
    const snippet = s.clients[c.key];
    const button = h('button', { class: 'btn btn-small', type: 'button', 'data-testid': `mcp-copy-${c.key}` }, 'Copy');
    button.addEventListener('click', () => void copy(button, () => snippet));
    return h(
      'section',
      { class: 'mcp-client', 'data-testid': `mcp-client-${c.key}` },
      h('div', { class: 'mcp-client-head' }, h('h3', { class: 'field-label' }, c.title, ' ', h('span', { class: 'muted' }, `— ${c.where}`)), button),
      // Focusable: a snippet wider than the panel scrolls, and a keyboard must be able to scroll it too.
      h('pre', { class: 'mcp-snippet plain', 'data-testid': `mcp-snippet-${c.key}`, tabindex: 0 }, shownSnippet(snippet, s.token, this.visible)),
    );
  }

  private async regenerate(): Promise<void> {
    if (!window.confirm('Make a new MCP token? Agents configured with the current one stop working until you paste the new configuration.')) return;
    try {
      this.settings = await api.regenerateMcpToken();
      this.render();
      notify('New MCP token made. Paste the new configuration into your agents.');
    } catch (err) {
      notify(failureText(err), 'error');
    }
  }
}
