// The conversation's own settings in its header: the model, picked from the agent's model list (GET
// /api/agent/models, the list the agent settings' Test shows), and an optional system prompt edited in a dialog.
// Both are stored on the session (POST /api/session/settings) and the server sends them with each turn.
import { api, type AgentModelsResponse, type Session } from './api.js';
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

export class ConversationSettingsView {
  private readonly el = byId('conversation-settings');
  private readonly select = byId<HTMLSelectElement>('session-model');
  private readonly promptButton = byId<HTMLButtonElement>('system-prompt-button');
  private readonly dialog = byId<HTMLDialogElement>('system-prompt-dialog');
  private readonly input = byId<HTMLTextAreaElement>('system-prompt-input');
  private readonly error = byId('system-prompt-error');
  private models: AgentModelsResponse | null = null;
  private session: Session | null = null;
  private drawn = '';

  constructor(private readonly saved: (session: Session) => void) {
    this.select.addEventListener('change', () => void this.save({ model: this.select.value || null }));
    this.promptButton.addEventListener('click', () => this.openPrompt());
    byId<HTMLFormElement>('system-prompt-form').addEventListener('submit', (e) => {
      if ((e.submitter as HTMLButtonElement | null)?.value !== 'save') return;
      e.preventDefault();
      void this.savePrompt();
    });
  }

  /** Read the agent's models again (at start, and when the agent settings change). */
  async load(agentReady: boolean): Promise<void> {
    this.models = agentReady ? await api.agentModels().catch((err: unknown) => ({ ok: false as const, type: 'unreachable' as const, message: err instanceof Error ? err.message : String(err) })) : null;
    this.drawn = '';
    this.draw();
  }

  update(state: AppState): void {
    this.session = state.session;
    this.el.hidden = !state.session || !state.agentReady;
    this.draw();
  }

  private draw(): void {
    const session = this.session;
    const key = JSON.stringify([session?.session_id, session?.model, session?.system_prompt, this.models]);
    if (key === this.drawn) return;
    this.drawn = key;
    clear(this.select);
    for (const c of modelChoices(this.models, session?.model)) this.select.appendChild(h('option', { value: c.value, selected: c.value === (session?.model ?? DEFAULT_CHOICE) }, c.label));
    this.select.title = this.models && !this.models.ok ? `The agent’s models could not be listed: ${this.models.message}` : 'The model this conversation asks';
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
  private async save(change: { model?: string | null; system_prompt?: string | null }, errorEl?: HTMLElement): Promise<boolean> {
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
