// The MCP panel's agents (issue 39): "Connect an agent" makes an agent its own key (its token and configuration
// shown this once, with Copy buttons), and the list of agents, each with Rename, Pause/Resume, Access (its grants)
// and Revoke. The shared MCP token is the agent "Unnamed client": retiring it is revoking that key.
import { api, type AgentKey, type AgentKeyCreated, type AgentKeyKind, type FolderSummary, type SessionSummary } from './api.js';
import { promptText } from './dialogs.js';
import { append, h } from './dom.js';
import { formatTime } from './format.js';
import { copyTextButton } from './mcp-copy.js';
import { grantsEditor, type GrantsEditor } from './mcp-grants-editor.js';
import { AGENT_KINDS, choiceFromGrants, EMPTY_CHOICE, grantsFromChoice, grantsSummary, keyStatus, kindLabel, UNNAMED_KEY_ID } from './mcp-grants-model.js';
import { notify } from './toast.js';

const failureText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Where each client's configuration goes, as the created key's box says it. */
const SNIPPET_PLACE: Record<Exclude<AgentKeyKind, 'other'>, string> = {
  claude_code: 'Run in a terminal',
  codex: 'Add to ~/.codex/config.toml',
  cursor: 'Add to .cursor/mcp.json (or ~/.cursor/mcp.json)',
  hermes: 'Add to Hermes Agent’s config.yaml',
};

export interface KeysData {
  keys: AgentKey[];
  sessions: SessionSummary[];
  workspaces: string[];
  /** The profile's folders (GET /api/folders): offered as grants, and named in each agent's summary. */
  folders: FolderSummary[];
}

export class AgentsView {
  readonly el = h('section', { class: 'mcp-agents', 'data-testid': 'mcp-agents', 'aria-labelledby': 'mcp-agents-heading' });
  private connecting: { name: HTMLInputElement; kind: HTMLSelectElement; grants: GrantsEditor; error: HTMLElement } | null = null;
  private created: AgentKeyCreated | null = null;
  private editing: { id: string; grants: GrantsEditor; error: HTMLElement } | null = null;

  constructor(
    private data: KeysData,
    /** Called after any change to the keys (the panel redraws what depends on them: the shared token, the ledger's filter). */
    private readonly changed: (keys: AgentKey[]) => void,
  ) {
    this.render();
  }

  private titleOf = (id: string): string | undefined => this.data.sessions.find((s) => s.session_id === id)?.title;
  private folderOf = (id: string): string | undefined => this.data.folders.find((f) => f.id === id)?.name;

  /** Redraws, putting the keyboard back on the control it was on (found again by its test id and its agent). */
  private render(focus?: { testid: string; keyId?: string }): void {
    const active = document.activeElement instanceof HTMLElement && this.el.contains(document.activeElement) ? document.activeElement : null;
    const want = focus ?? (active?.dataset.testid ? { testid: active.dataset.testid, keyId: active.closest<HTMLElement>('[data-key-id]')?.dataset.keyId } : undefined);
    this.el.replaceChildren();
    append(this.el, [
      h('div', { class: 'mcp-section-head' }, h('h3', { id: 'mcp-agents-heading' }, 'Agents'), this.connecting || this.created ? null : h('button', { class: 'btn btn-primary btn-small', type: 'button', 'data-testid': 'mcp-connect', onclick: () => this.openConnect() }, 'Connect an agent')),
      this.connecting ? this.connectForm() : null,
      this.created ? this.createdBox(this.created) : null,
      h('ul', { class: 'mcp-keys', 'data-testid': 'mcp-keys', 'aria-label': 'Agents' }, ...this.data.keys.map((k) => this.keyRow(k))),
    ]);
    if (want) {
      const scope = want.keyId ? this.el.querySelector<HTMLElement>(`[data-key-id="${CSS.escape(want.keyId)}"]`) : this.el;
      const target = scope?.querySelector<HTMLElement>(`[data-testid="${CSS.escape(want.testid)}"]`) ?? (want.keyId ? scope?.querySelector<HTMLElement>('.mcp-key-name') : null);
      target?.focus();
    }
  }

  private openConnect(): void {
    const name = h('input', { type: 'text', id: 'mcp-connect-name', maxlength: 64, required: true, autocomplete: 'off', 'data-testid': 'mcp-connect-name' });
    const kind = h('select', { id: 'mcp-connect-kind', 'data-testid': 'mcp-connect-kind' }, ...AGENT_KINDS.map((k) => h('option', { value: k.kind }, k.label)));
    // The agent sees everything unless the person narrows it: what the shared token has always given.
    const grants = grantsEditor({ ...EMPTY_CHOICE, all: true }, this.data.sessions, this.data.workspaces, 'mcp-connect-grants', this.data.folders);
    const error = h('p', { class: 'error-text', role: 'alert', 'data-testid': 'mcp-connect-error' });
    kind.addEventListener('change', () => {
      // A name still empty (or still a kind's label) follows the kind picked.
      if (name.value === '' || AGENT_KINDS.some((k) => k.label === name.value)) name.value = kindLabel(kind.value);
    });
    name.value = kindLabel(kind.value);
    this.connecting = { name, kind, grants, error };
    this.render({ testid: 'mcp-connect-name' });
    name.select();
  }

  private connectForm(): HTMLElement {
    const c = this.connecting!;
    const form = h(
      'form',
      { class: 'mcp-connect', 'data-testid': 'mcp-connect-form', 'aria-label': 'Connect an agent' },
      h('div', { class: 'mcp-connect-row' }, h('div', { class: 'field' }, h('label', { class: 'field-label', for: 'mcp-connect-kind' }, 'Agent'), c.kind), h('div', { class: 'field mcp-grow' }, h('label', { class: 'field-label', for: 'mcp-connect-name' }, 'Name'), c.name)),
      c.grants.el,
      c.error,
      h(
        'div',
        { class: 'dialog-actions' },
        h(
          'button',
          {
            class: 'btn',
            type: 'button',
            'data-testid': 'mcp-connect-cancel',
            onclick: () => {
              this.connecting = null;
              this.render({ testid: 'mcp-connect' });
            },
          },
          'Cancel',
        ),
        h('button', { class: 'btn btn-primary', type: 'submit', 'data-testid': 'mcp-connect-create' }, 'Make its key'),
      ),
    );
    form.addEventListener('submit', (e) => {
      // This form sits inside the dialog: a plain submit would close it.
      e.preventDefault();
      void this.create();
    });
    return form;
  }

  private async create(): Promise<void> {
    const c = this.connecting!;
    const grants = grantsFromChoice(c.grants.read());
    if (!grants.ok) {
      c.error.textContent = grants.error;
      return;
    }
    try {
      this.created = await api.createAgentKey(c.name.value, c.kind.value as AgentKeyKind, grants.grants);
    } catch (err) {
      c.error.textContent = failureText(err);
      return;
    }
    this.connecting = null;
    this.data.keys = [...this.data.keys, this.created.key];
    this.render({ testid: 'mcp-created-copy-token' });
    this.changed(this.data.keys);
  }

  /** The new key's token and configuration: shown here once; "Done" forgets them. */
  private createdBox(c: AgentKeyCreated): HTMLElement {
    const kind = c.key.kind;
    const snippets: [string, string, string][] =
      kind === 'other'
        ? [['other', 'Any MCP client: the endpoint, with this header', `URL: ${c.url}\nAuthorization: Bearer ${c.token}`]]
        : [[kind, SNIPPET_PLACE[kind], c.clients[kind]]];
    return h(
      'section',
      { class: 'mcp-created', 'data-testid': 'mcp-created', 'aria-labelledby': 'mcp-created-heading' },
      h('h4', { id: 'mcp-created-heading' }, `${c.key.name}’s key is ready`),
      h('p', { class: 'small' }, h('strong', {}, 'Copy it now: Satchel shows this token only once.'), ' Its configuration holds it too.'),
      h('div', { class: 'mcp-token-row' }, h('code', { class: 'mcp-value', 'data-testid': 'mcp-created-token' }, c.token), copyTextButton('mcp-created-copy-token', () => c.token)),
      ...snippets.map(([id, where, text]) =>
        h(
          'div',
          { class: 'mcp-client' },
          h('div', { class: 'mcp-client-head' }, h('span', { class: 'field-label' }, where), copyTextButton(`mcp-created-copy-${id}`, () => text)),
          h('pre', { class: 'mcp-snippet plain', tabindex: 0, 'data-testid': 'mcp-created-snippet', 'aria-label': 'Configuration' }, text),
        ),
      ),
      h(
        'div',
        { class: 'dialog-actions' },
        h(
          'button',
          {
            class: 'btn btn-primary',
            type: 'button',
            'data-testid': 'mcp-created-done',
            onclick: () => {
              this.created = null;
              this.render({ testid: 'mcp-connect' });
            },
          },
          'Done',
        ),
      ),
    );
  }

  private keyRow(k: AgentKey): HTMLElement {
    const status = keyStatus(k);
    const unnamed = k.id === UNNAMED_KEY_ID;
    const used = k.last_used_at ? `last used ${formatTime(k.last_used_at)}` : 'never used';
    const row = h(
      'li',
      { class: 'mcp-key', 'data-testid': 'mcp-key', 'data-key-id': k.id, 'data-status': status.toLowerCase() },
      h(
        'div',
        { class: 'mcp-key-head' },
        h('span', { class: 'mcp-key-name', 'data-testid': 'mcp-key-name', tabindex: -1 }, k.name),
        h('span', { class: 'muted small' }, unnamed ? 'the shared token' : kindLabel(k.kind)),
        h('span', { class: 'mcp-key-status', 'data-testid': 'mcp-key-status' }, status),
      ),
      h('p', { class: 'muted small mcp-key-line', 'data-testid': 'mcp-key-grants' }, k.revoked ? `${status} ${formatTime(k.revoked_at ?? undefined)}` : `${grantsSummary(k.grants, this.titleOf, Date.now(), this.folderOf)} · ${used}`),
    );
    if (k.revoked) return row;
    const action = (testid: string, label: string, aria: string, run: () => void) => h('button', { class: 'btn btn-small', type: 'button', 'data-testid': testid, 'aria-label': aria, onclick: run }, label);
    row.append(
      h(
        'div',
        { class: 'mcp-key-actions' },
        unnamed ? null : action('mcp-key-rename', 'Rename', `Rename ${k.name}`, () => void this.rename(k)),
        action('mcp-key-pause', k.paused ? 'Resume' : 'Pause', `${k.paused ? 'Resume' : 'Pause'} ${k.name}`, () => void this.pause(k)),
        action('mcp-key-access', 'Access', `Access: what ${k.name} may read`, () => this.openAccess(k)),
        h('button', { class: 'btn btn-small btn-danger-quiet', type: 'button', 'data-testid': 'mcp-key-revoke', 'aria-label': `${unnamed ? 'Retire' : 'Revoke'} ${k.name}`, onclick: () => void this.revoke(k) }, unnamed ? 'Retire' : 'Revoke'),
      ),
    );
    if (this.editing?.id === k.id) row.append(this.accessForm(k));
    return row;
  }

  private replaceKey(key: AgentKey): void {
    this.data.keys = this.data.keys.map((k) => (k.id === key.id ? key : k));
    this.changed(this.data.keys);
  }

  private async rename(k: AgentKey): Promise<void> {
    const name = await promptText(`Rename ${k.name}`, 'Name', k.name);
    if (name === null || name === k.name) {
      this.render({ testid: 'mcp-key-rename', keyId: k.id });
      return;
    }
    try {
      this.replaceKey((await api.renameAgentKey(k.id, name)).key);
    } catch (err) {
      notify(failureText(err), 'error');
    }
    this.render({ testid: 'mcp-key-rename', keyId: k.id });
  }

  private async pause(k: AgentKey): Promise<void> {
    try {
      this.replaceKey((await api.pauseAgentKey(k.id, !k.paused)).key);
      notify(k.paused ? `${k.name} can read again.` : `${k.name} is paused: its requests are refused until you resume it.`);
    } catch (err) {
      notify(failureText(err), 'error');
    }
    this.render({ testid: 'mcp-key-pause', keyId: k.id });
  }

  private async revoke(k: AgentKey): Promise<void> {
    const question =
      k.id === UNNAMED_KEY_ID
        ? 'Retire the shared MCP token? Every agent still configured with it is refused from its next request. This cannot be undone.'
        : `Revoke ${k.name}’s key? It is refused from its next request, for good (a new key can be made). This cannot be undone.`;
    if (!window.confirm(question)) return;
    try {
      this.replaceKey((await api.revokeAgentKey(k.id)).key);
      if (this.editing?.id === k.id) this.editing = null;
      notify(k.id === UNNAMED_KEY_ID ? 'The shared MCP token is retired.' : `${k.name}’s key is revoked.`);
    } catch (err) {
      notify(failureText(err), 'error');
    }
    this.render({ testid: 'mcp-key-name', keyId: k.id });
  }

  private openAccess(k: AgentKey): void {
    if (this.editing?.id === k.id) {
      this.editing = null;
      this.render({ testid: 'mcp-key-access', keyId: k.id });
      return;
    }
    this.editing = { id: k.id, grants: grantsEditor(choiceFromGrants(k.grants), this.data.sessions, this.data.workspaces, 'mcp-access', this.data.folders), error: h('p', { class: 'error-text', role: 'alert', 'data-testid': 'mcp-access-error' }) };
    this.render({ testid: k.grants.some((g) => g.kind === 'all') ? 'mcp-access-all' : 'mcp-access-some', keyId: k.id });
  }

  private accessForm(k: AgentKey): HTMLElement {
    const e = this.editing!;
    const form = h(
      'form',
      { class: 'mcp-access', 'data-testid': 'mcp-access', 'aria-label': `What ${k.name} may read` },
      e.grants.el,
      e.error,
      h(
        'div',
        { class: 'dialog-actions' },
        h(
          'button',
          {
            class: 'btn',
            type: 'button',
            'data-testid': 'mcp-access-cancel',
            onclick: () => {
              this.editing = null;
              this.render({ testid: 'mcp-key-access', keyId: k.id });
            },
          },
          'Cancel',
        ),
        h('button', { class: 'btn btn-primary', type: 'submit', 'data-testid': 'mcp-access-save' }, 'Save access'),
      ),
    );
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      void this.saveAccess(k);
    });
    return form;
  }

  private async saveAccess(k: AgentKey): Promise<void> {
    const e = this.editing!;
    const grants = grantsFromChoice(e.grants.read());
    if (!grants.ok) {
      e.error.textContent = grants.error;
      return;
    }
    try {
      this.replaceKey((await api.setAgentKeyGrants(k.id, grants.grants)).key);
    } catch (err) {
      e.error.textContent = failureText(err);
      return;
    }
    this.editing = null;
    notify(`${k.name} may read: ${grantsSummary(this.data.keys.find((x) => x.id === k.id)!.grants, this.titleOf, Date.now(), this.folderOf)}.`);
    this.render({ testid: 'mcp-key-access', keyId: k.id });
  }
}
