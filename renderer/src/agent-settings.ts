// "Connect an agent": the agent's base URL, API key (write-only: the page only learns whether one is saved),
// model (picked from what Test connection lists, or typed), and the agents found running on this computer.
// The kind and the key belong to the address: the detected kind is shown, and saving a new address with the
// key field empty first asks whether the saved key may go there (agent-connection.ts has the words). Several
// connections can be saved (agent-connections.ts lists them): the fields edit the one picked, the default at first.
import { gearWords, keepKeyQuestion, kindText, testResultText, toolsView } from './agent-connection.js';
import { ConnectionList } from './agent-connections.js';
import { api, ApiError, type AgentConnectionsResponse, type AgentKind, type AgentSettings, type AgentSettingsInput, type AgentSettingsResponse, type DiscoveredAgent } from './api.js';
import { byId, clear, h, icon, ICONS } from './dom.js';
import { OPEN_AGENT_SETTINGS } from './error-row.js';
import { McpPanel } from './mcp-panel.js';
import { notify } from './toast.js';

const HOLD_TO_SEND_KEY = 'satchel.holdToSend';

/** "Hold to talk, release to send": a dictation held on the microphone button is sent when released. */
export function holdToSend(): boolean {
  try {
    return localStorage.getItem(HOLD_TO_SEND_KEY) === '1';
  } catch {
    return false;
  }
}

function setHoldToSend(on: boolean): void {
  try {
    if (on) localStorage.setItem(HOLD_TO_SEND_KEY, '1');
    else localStorage.removeItem(HOLD_TO_SEND_KEY);
  } catch {
    // storage off: the setting lasts until the page closes at most
  }
}

/** A failed request in the words of the server: its message, then the kind of failure and what to do. */
export function failureText(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  const { type, hint } = err.details;
  return [err.message, typeof type === 'string' ? `(${type})` : '', typeof hint === 'string' ? `— ${hint}` : ''].filter(Boolean).join(' ');
}

export class AgentSettingsDialog {
  private readonly dialog = byId<HTMLDialogElement>('agent-dialog');
  private readonly form = byId<HTMLFormElement>('agent-form');
  private readonly baseUrl = byId<HTMLInputElement>('agent-base-url');
  private readonly apiKey = byId<HTMLInputElement>('agent-api-key');
  private readonly keySaved = byId('agent-key-saved');
  private readonly modelSelect = byId<HTMLSelectElement>('agent-model-select');
  private readonly model = byId<HTMLInputElement>('agent-model');
  private readonly testButton = byId<HTMLButtonElement>('agent-test');
  private readonly testResult = byId('agent-test-result');
  private readonly kindLine = byId('agent-kind');
  private readonly keyConfirm = byId('agent-key-confirm');
  private readonly keyConfirmText = byId('agent-key-confirm-text');
  private readonly error = byId('agent-settings-error');
  private readonly discovered = byId<HTMLUListElement>('agent-discovered');
  private readonly chatTab = byId<HTMLButtonElement>('agent-tab-chat');
  private readonly mcpTab = byId<HTMLButtonElement>('agent-tab-mcp');
  private readonly mcpWrap = byId('mcp-panel-wrap');
  private readonly mcp = new McpPanel(byId('mcp-panel'));
  private readonly name = byId<HTMLInputElement>('agent-connection-name');
  private readonly tools = byId<HTMLInputElement>('agent-tools');
  private readonly toolsRow = byId('agent-tools-row');
  private readonly toolsNote = byId('agent-tools-note');
  /** The server refused tools (the saved settings said so, or the last Test). */
  private toolsRefused = false;
  private readonly connections: ConnectionList;
  private settings: AgentSettings | null = null;
  private kind: AgentKind | undefined;
  /** The kinds the server speaks, as it names them (read with the settings). */
  private kinds: AgentSettingsResponse['kinds'] = [];
  /** The connection the fields edit: an id, or undefined for a new one. */
  private editing: string | undefined;

  /** `saved`: the settings the server now holds (the page's notice and Send follow them). */
  constructor(private readonly saved: (settings: AgentSettings | null) => void) {
    this.connections = new ConnectionList(byId<HTMLUListElement>('agent-connection-list'), {
      edit: (id) => this.edit(id),
      changed: (list) => void this.changed(list),
      failed: (err) => this.showError(failureText(err)),
    });
    byId('agent-connection-add').addEventListener('click', () => this.edit(undefined));
    const gear = byId<HTMLButtonElement>('agent-settings-button');
    gear.appendChild(icon([...ICONS.gear]));
    gear.addEventListener('click', () => void this.open());
    byId('agent-notice-link').addEventListener('click', () => void this.open());
    // A failure's button (error-row.ts): open() shows the Chat agent tab.
    document.addEventListener(OPEN_AGENT_SETTINGS, () => void this.open());
    this.testButton.addEventListener('click', () => void this.test());
    this.chatTab.addEventListener('click', () => this.showTab('chat'));
    this.mcpTab.addEventListener('click', () => this.showTab('mcp'));
    const hold = byId<HTMLInputElement>('hold-to-send');
    hold.checked = holdToSend();
    hold.addEventListener('change', () => setHoldToSend(hold.checked));
    // Another address: its kind is detected again (on Test or Save), and the saved key's question may change.
    this.baseUrl.addEventListener('input', () => {
      this.kind = undefined;
      this.showKind();
      this.showKeyState();
    });
    this.apiKey.addEventListener('input', () => this.showKeyState());
    byId('agent-key-keep').addEventListener('click', () => void this.save(true));
    byId('agent-key-drop').addEventListener('click', () => void this.save(false));
    this.modelSelect.addEventListener('change', () => {
      if (this.modelSelect.value) this.model.value = this.modelSelect.value;
    });
    this.form.addEventListener('submit', (e) => {
      const submitter = (e as SubmitEvent).submitter as HTMLButtonElement | null;
      if (submitter?.value !== 'save') return; // Cancel closes the dialog as usual
      e.preventDefault();
      void this.save();
    });
  }

  /** The server's settings, or null when they could not be read. */
  async load(): Promise<AgentSettings | null> {
    try {
      const got = await api.agentSettings();
      this.kinds = got.kinds;
      this.settings = got;
    } catch {
      this.settings = null;
    }
    const words = gearWords(this.settings);
    const gear = byId<HTMLButtonElement>('agent-settings-button');
    gear.title = words.title;
    byId('agent-heading').textContent = words.heading;
    return this.settings;
  }

  /** An MCP client's read was recorded: the MCP panel's timeline, if open, shows it (mcp-panel.ts). */
  mcpReadRecorded(): void {
    this.mcp.readRecorded();
  }

  async open(): Promise<void> {
    await this.load();
    const list = await api.agentConnections().catch(() => null);
    this.connections.show(list);
    this.fill(list?.default_id ?? undefined, this.settings, list?.connections.find((c) => c.is_default)?.name ?? '');
    this.showTab('chat');
    if (!this.dialog.open) this.dialog.showModal();
    this.baseUrl.focus();
    void this.discover();
  }

  /** The fields show connection `id` (undefined: a new one, empty); a key is never shown, only whether one is saved. */
  private edit(id: string | undefined): void {
    const c = id === undefined ? undefined : this.connections.find(id);
    this.fill(id, c ?? null, c?.name ?? '');
    this.baseUrl.focus();
  }

  private fill(id: string | undefined, s: AgentSettings | null, name: string): void {
    this.editing = id;
    this.settings = s;
    this.connections.mark(id);
    this.name.value = name;
    this.baseUrl.value = s?.base_url ?? '';
    this.model.value = s?.model ?? '';
    this.kind = s?.kind ?? undefined;
    this.apiKey.value = '';
    this.tools.checked = s?.tools ?? true;
    this.toolsRefused = s?.tools_refused === true;
    this.showKind();
    this.showKeyState();
    this.modelSelect.hidden = true;
    clear(this.modelSelect);
    clear(this.testResult);
    delete this.testResult.dataset.state;
    this.error.hidden = true;
    const fixed = new Set(s?.from_env ?? []);
    this.baseUrl.readOnly = fixed.has('baseUrl') || fixed.has('base_url');
    this.model.readOnly = fixed.has('model');
  }

  /** The list changed (deleted, default moved): the page follows the default connection's settings. */
  private async changed(list: AgentConnectionsResponse): Promise<void> {
    if (this.editing !== undefined && !list.connections.some((c) => c.id === this.editing) && this.editing !== list.default_id) this.edit(list.default_id);
    this.saved(await this.load());
  }

  private showError(text: string): void {
    this.error.textContent = text;
    this.error.hidden = false;
  }

  /** The dialog's two parts: the agent Satchel chats with, and the MCP endpoint other agents read through. */
  private showTab(tab: 'chat' | 'mcp'): void {
    const mcp = tab === 'mcp';
    this.form.hidden = mcp;
    this.mcpWrap.hidden = !mcp;
    this.chatTab.setAttribute('aria-selected', String(!mcp));
    this.mcpTab.setAttribute('aria-selected', String(mcp));
    if (mcp) void this.mcp.show();
  }

  private showKind(): void {
    this.kindLine.textContent = kindText(this.kind, this.kinds);
    this.showTools(this.toolsRefused);
  }

  /** The tools' box and its note for the kind shown (agent-connection.ts toolsView). */
  private showTools(refused: boolean): void {
    this.toolsRefused = refused;
    const view = toolsView(this.kind, refused);
    this.toolsRow.hidden = view.hidden;
    this.toolsNote.textContent = view.note;
    this.toolsNote.hidden = !view.note;
  }

  /** The saved key's badge and placeholder for the address typed now; a pending question goes when it changes. */
  private showKeyState(): void {
    const has = Boolean(this.settings?.has_api_key);
    const elsewhere = keepKeyQuestion(this.settings, this.baseUrl.value, '') !== undefined;
    this.keySaved.hidden = !has;
    this.keySaved.textContent = elsewhere ? 'saved for another address' : 'saved';
    this.apiKey.placeholder = !has
      ? 'None (leave empty if the agent needs no key)'
      : elsewhere
        ? 'Saved for the previous address — Save asks before sending it here'
        : 'Saved — leave empty to keep it';
    this.keyConfirm.hidden = true;
  }

  private input(keepKey = false): AgentSettingsInput {
    const key = this.apiKey.value.trim();
    return {
      base_url: this.baseUrl.value.trim(),
      model: this.model.value.trim(),
      ...(key ? { api_key: key } : {}),
      ...(keepKey ? { keep_api_key: true } : {}),
      ...(this.kind ? { kind: this.kind } : {}),
      tools: this.tools.checked,
    };
  }

  private async discover(): Promise<void> {
    const wrap = byId('agent-discovered-wrap');
    let found: DiscoveredAgent[] = [];
    try {
      found = (await api.discoverAgents()).agents;
    } catch {
      // nothing found: the fields still work
    }
    clear(this.discovered);
    wrap.hidden = found.length === 0;
    for (const a of found) {
      this.discovered.appendChild(
        h(
          'li',
          {},
          h(
            'button',
            {
              class: 'btn btn-small',
              type: 'button',
              'data-testid': 'agent-discovered-item',
              'data-base-url': a.base_url,
              onclick: () => {
                this.baseUrl.value = a.base_url;
                this.kind = a.kind;
                void this.test();
              },
            },
            `${a.label || a.kind} — ${a.base_url}`,
          ),
        ),
      );
    }
  }

  private async test(): Promise<void> {
    this.testButton.disabled = true;
    clear(this.testResult);
    this.testResult.dataset.state = 'running';
    this.testResult.textContent = 'Testing…';
    try {
      // A saved connection's key may go to its own address: the server is told which one (none yet: no key saved).
      const saved = this.editing !== undefined && this.connections.find(this.editing) ? { connection: this.editing } : {};
      const res = await api.testAgent({ ...this.input(), ...saved });
      this.testResult.dataset.state = res.ok ? 'ok' : 'error';
      this.testResult.dataset.type = res.ok ? '' : res.type;
      this.testResult.textContent = testResultText(res);
      if (res.ok) {
        this.kind = res.kind;
        this.showKind();
        if (res.tools !== undefined) this.showTools(!res.tools);
        this.fillModels(res.models);
      } else if (res.models) {
        this.fillModels(res.models, false);
      }
    } catch (err) {
      this.testResult.dataset.state = 'error';
      this.testResult.textContent = failureText(err);
    } finally {
      this.testButton.disabled = false;
    }
  }

  /** The select of the models the agent lists; `pick`: the typed model becomes the first when it is not one. */
  private fillModels(models: string[], pick = true): void {
    clear(this.modelSelect);
    this.modelSelect.hidden = models.length === 0;
    if (models.length === 0) return;
    const current = this.model.value.trim();
    if (pick && (!current || !models.includes(current))) this.model.value = models[0] ?? '';
    for (const m of models) this.modelSelect.appendChild(h('option', { value: m, selected: m === this.model.value }, m));
  }

  /**
   * Saves. A new address with the key field empty and a key saved asks first (`keepKey` undefined): the answer
   * comes back here as true (send the saved key there) or false (the server removes it).
   */
  private async save(keepKey?: boolean): Promise<void> {
    const input = this.input(keepKey === true);
    if (!input.base_url) {
      this.error.textContent = 'Enter the agent’s base URL.';
      this.error.hidden = false;
      return;
    }
    const question = keepKeyQuestion(this.settings, input.base_url, this.apiKey.value);
    if (question && keepKey === undefined) {
      this.keyConfirmText.textContent = question;
      this.keyConfirm.hidden = false;
      byId<HTMLButtonElement>('agent-key-drop').focus();
      return;
    }
    this.keyConfirm.hidden = true;
    try {
      const name = this.name.value.trim();
      const answer = await api.saveAgentConnection({ ...input, ...(this.editing ? { id: this.editing } : {}), ...(name || this.editing ? { name } : {}) });
      this.connections.show(answer);
      this.dialog.close('save');
      // The page's notice and Send follow the default connection, whichever was saved.
      this.saved(await this.load());
      notify('Agent settings saved.');
    } catch (err) {
      this.error.textContent = failureText(err);
      this.error.hidden = false;
    }
  }
}
