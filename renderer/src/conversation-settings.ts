// The conversation's own settings in its header: the model, picked from the agent's model list (GET
// /api/agent/models, the list the agent settings' Test shows), and an optional system prompt edited in a dialog.
// Both are stored on the session (POST /api/session/settings) and the server sends them with each turn. With
// several saved agent connections, the header also picks the conversation's connection; the models offered are
// that connection's. And whether MCP clients may see the conversation at all ("Keep out of MCP"), shown with or
// without an agent: MCP is how other agents read Satchel, whichever agent this window talks to.
import { connectionLabel } from './agent-connections.js';
import { api, type AgentConnectionsResponse, type AgentModelsResponse, type Session, type SessionSettingsInput } from './api.js';
import { byId, clear, h } from './dom.js';
import type { AppState } from './store.js';
import { notify } from './toast.js';

/** The picker's first choice: no model of its own, the agent settings' one applies. */
const DEFAULT_CHOICE = '';

/** The picker's choices: the default (naming the settings' model), the agent's models, and the stored one if unlisted. */
export function modelChoices(models: AgentModelsResponse | null, stored: string | undefined): { value: string; label: string }[] {
  const listed = models?.ok ? models.models : [];
  const fallback = models?.ok && models.model ? `Agent default (${models.model})` : 'Agent default';
  const choices = [{ value: DEFAULT_CHOICE, label: fallback }, ...listed.map((m) => ({ value: m, label: m }))];
  if (stored && !listed.includes(stored)) choices.push({ value: stored, label: `${stored} (not listed by the agent)` });
  return choices;
}

/** The connection picker's choices: the default (named), each saved connection, and a deleted one if the conversation names it. */
export function connectionChoices(list: AgentConnectionsResponse | null, stored: string | undefined): { value: string; label: string }[] {
  const connections = list?.connections ?? [];
  const byDefault = connections.find((c) => c.is_default);
  const choices = [{ value: DEFAULT_CHOICE, label: byDefault ? `Default (${byDefault.name})` : 'Default' }, ...connections.map((c) => ({ value: c.id, label: connectionLabel(c) }))];
  if (stored && !connections.some((c) => c.id === stored)) choices.push({ value: stored, label: 'Deleted connection — the default answers' });
  return choices;
}

export class ConversationSettingsView {
  private readonly el = byId('conversation-settings');
  private readonly select = byId<HTMLSelectElement>('session-model');
  private readonly promptButton = byId<HTMLButtonElement>('system-prompt-button');
  private readonly dialog = byId<HTMLDialogElement>('system-prompt-dialog');
  private readonly input = byId<HTMLTextAreaElement>('system-prompt-input');
  private readonly error = byId('system-prompt-error');
  private readonly connectionWrap = byId('conversation-connection');
  private readonly connectionSelect = byId<HTMLSelectElement>('session-connection');
  private readonly modelWrap = byId('conversation-model');
  private readonly keepOut = byId<HTMLInputElement>('session-keep-out-of-mcp');
  private connections: AgentConnectionsResponse | null = null;
  /** Each connection's models ('' the default's), read when a conversation on it is first shown. */
  private readonly modelsBy = new Map<string, AgentModelsResponse | null>();
  private models: AgentModelsResponse | null = null;
  private agentReady = false;
  /** The window's state says an agent is configured: the model, connection and prompt are shown. */
  private agentShown = false;
  private session: Session | null = null;
  private drawn = '';

  constructor(private readonly saved: (session: Session) => void) {
    this.select.addEventListener('change', () => void this.save({ model: this.select.value || null }));
    // A new connection clears the conversation's model on the server: the new connection's own model applies.
    this.connectionSelect.addEventListener('change', () => void this.save({ connection: this.connectionSelect.value || null }));
    this.promptButton.addEventListener('click', () => this.openPrompt());
    this.keepOut.addEventListener('change', () => void this.save({ keep_out_of_mcp: this.keepOut.checked }));
    byId<HTMLFormElement>('system-prompt-form').addEventListener('submit', (e) => {
      if ((e.submitter as HTMLButtonElement | null)?.value !== 'save') return;
      e.preventDefault();
      void this.savePrompt();
    });
  }

  /** Read the connections and the models again (at start, and when the agent settings change). */
  async load(agentReady: boolean): Promise<void> {
    this.agentReady = agentReady;
    this.modelsBy.clear();
    this.connections = agentReady ? await api.agentConnections().catch(() => null) : null;
    this.drawn = '';
    this.draw();
  }

  update(state: AppState): void {
    this.session = state.session;
    this.agentShown = state.agentReady;
    this.el.hidden = !state.session;
    this.draw();
  }

  /** The connection whose models apply: the conversation's, or the default ('') when it has none or it was deleted. */
  private connectionKey(): string {
    const id = this.session?.connection;
    return id && this.connections?.connections.some((c) => c.id === id) ? id : DEFAULT_CHOICE;
  }

  private modelsFor(key: string): AgentModelsResponse | null {
    if (!this.agentReady) return null;
    if (!this.modelsBy.has(key)) {
      this.modelsBy.set(key, null);
      void api
        .agentModels(key || undefined)
        .catch((err: unknown) => ({ ok: false as const, type: 'unreachable' as const, message: err instanceof Error ? err.message : String(err) }))
        .then((models) => {
          this.modelsBy.set(key, models);
          this.draw();
        });
    }
    return this.modelsBy.get(key) ?? null;
  }

  private draw(): void {
    const session = this.session;
    this.models = this.modelsFor(this.connectionKey());
    const key = JSON.stringify([session?.session_id, session?.model, session?.system_prompt, session?.connection, session?.keep_out_of_mcp, this.models, this.connections, this.agentShown]);
    if (key === this.drawn) return;
    this.drawn = key;
    clear(this.select);
    for (const c of modelChoices(this.models, session?.model)) this.select.appendChild(h('option', { value: c.value, selected: c.value === (session?.model ?? DEFAULT_CHOICE) }, c.label));
    this.select.title = this.models && !this.models.ok ? `The agent’s models could not be listed: ${this.models.message}` : 'The model this conversation asks';
    clear(this.connectionSelect);
    for (const c of connectionChoices(this.connections, session?.connection)) {
      this.connectionSelect.appendChild(h('option', { value: c.value, selected: c.value === (session?.connection ?? DEFAULT_CHOICE) }, c.label));
    }
    // One connection and none picked: nothing to choose.
    this.connectionWrap.hidden = !this.agentShown || ((this.connections?.connections.length ?? 0) < 2 && !session?.connection);
    // The model and the prompt are the agent's: without one there is nothing to pick.
    this.modelWrap.hidden = !this.agentShown;
    this.promptButton.hidden = !this.agentShown;
    this.keepOut.checked = session?.keep_out_of_mcp === true;
    const prompt = session?.system_prompt ?? '';
    this.promptButton.textContent = prompt ? 'System prompt: on' : 'System prompt';
    this.promptButton.dataset.set = String(Boolean(prompt));
    this.promptButton.title = prompt ? prompt.slice(0, 200) : 'Add instructions sent before every message of this conversation';
  }

  private openPrompt(): void {
    if (!this.session) return;
    this.input.value = this.session.system_prompt ?? '';
    this.error.hidden = true;
    this.dialog.showModal();
    this.input.focus();
  }

  private async savePrompt(): Promise<void> {
    if (await this.save({ system_prompt: this.input.value.trim() ? this.input.value : null }, this.error)) this.dialog.close();
  }

  /** Stores the change; true when the server took it. A failure is said where the person is looking. */
  private async save(change: Omit<SessionSettingsInput, 'session_id'>, errorEl?: HTMLElement): Promise<boolean> {
    const id = this.session?.session_id;
    if (!id) return false;
    try {
      const { session } = await api.sessionSettings(id, change);
      this.saved(session);
      return true;
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      if (errorEl) {
        errorEl.textContent = text;
        errorEl.hidden = false;
      } else notify(text, 'error');
      this.drawn = '';
      this.draw();
      return false;
    }
  }
}
