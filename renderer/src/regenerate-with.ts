// "Regenerate with…" (issue 38, item 6): the last reply asked again of another saved agent connection or another
// model, for that reply only (the conversation's own agent and model stay as its header sets them). A native
// <dialog>: focus kept inside, Escape closes, focus goes back to the button that opened it.
import { api, type AgentConnectionsResponse, type AgentModelsResponse } from './api.js';
import { clear, h } from './dom.js';

/** What the person picked: the connection (absent: the conversation's) and the model (absent: that agent's own). */
export interface RegenerateChoice {
  connection?: string;
  model?: string;
}

/** The model picker's choices for a connection: its own default first (named), then every model it lists. */
export function regenerateModelChoices(models: AgentModelsResponse | null): { value: string; label: string }[] {
  const listed = models?.ok ? models.models : [];
  const own = models?.ok && models.model ? `Its default (${models.model})` : 'Its default';
  return [{ value: '', label: own }, ...listed.map((m) => ({ value: m, label: m }))];
}

/** The connection a conversation's turns use: its own when still saved, else the default. */
export function effectiveConnection(list: AgentConnectionsResponse | null, stored: string | undefined): string | undefined {
  const connections = list?.connections ?? [];
  if (stored && connections.some((c) => c.id === stored)) return stored;
  return connections.find((c) => c.is_default)?.id;
}

/**
 * What Regenerate sends for a choice: the connection only when it is not the one the conversation uses anyway (so
 * the conversation's model still applies to its own agent), the model only when one was picked.
 */
export function regenerateOptions(picked: { connection: string; model: string }, current: string | undefined): RegenerateChoice {
  return { ...(picked.connection && picked.connection !== current ? { connection: picked.connection } : {}), ...(picked.model ? { model: picked.model } : {}) };
}

let dialog: HTMLDialogElement | undefined;

/** The dialog, made once and kept in the page (it holds no conversation's data between uses). */
function theDialog(): { dialog: HTMLDialogElement; connection: HTMLSelectElement; model: HTMLSelectElement; status: HTMLElement } {
  if (!dialog) {
    const connection = h('select', { id: 'regenerate-connection', 'data-testid': 'regenerate-connection' });
    const model = h('select', { id: 'regenerate-model', 'data-testid': 'regenerate-model' });
    dialog = h(
      'dialog',
      { id: 'regenerate-dialog', class: 'dialog', 'data-testid': 'regenerate-dialog', 'aria-labelledby': 'regenerate-heading' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: 'regenerate-heading' }, 'Regenerate with…'),
        h('p', { class: 'muted small' }, 'Ask again for this reply only; the conversation keeps its own agent and model.'),
        h('label', { class: 'field' }, h('span', { class: 'field-label' }, 'Agent'), connection),
        h('label', { class: 'field' }, h('span', { class: 'field-label' }, 'Model'), model),
        h('p', { class: 'muted small', 'data-testid': 'regenerate-status', role: 'status' }),
        h(
          'div',
          { class: 'dialog-actions' },
          h('button', { class: 'btn', value: 'cancel', type: 'submit', formnovalidate: true }, 'Cancel'),
          h('button', { class: 'btn btn-primary', value: 'ok', type: 'submit', 'data-testid': 'regenerate-ok' }, 'Regenerate'),
        ),
      ),
    );
    document.body.appendChild(dialog);
  }
  const d = dialog;
  return {
    dialog: d,
    connection: d.querySelector<HTMLSelectElement>('#regenerate-connection')!,
    model: d.querySelector<HTMLSelectElement>('#regenerate-model')!,
    status: d.querySelector<HTMLElement>('[data-testid="regenerate-status"]')!,
  };
}

function fill(select: HTMLSelectElement, choices: readonly { value: string; label: string }[], selected: string): void {
  clear(select);
  for (const c of choices) select.appendChild(h('option', { value: c.value, selected: c.value === selected }, c.label));
}

/**
 * Ask which agent and model to regenerate with. `current`: the conversation's connection and model. Resolves the
 * options for the turn, or null when cancelled.
 */
export async function pickRegenerate(current: { connection?: string; model?: string }): Promise<RegenerateChoice | null> {
  const { dialog: d, connection, model, status } = theDialog();
  const list = await api.agentConnections().catch(() => null);
  const using = effectiveConnection(list, current.connection);
  fill(connection, (list?.connections ?? []).map((c) => ({ value: c.id, label: c.name })), using ?? '');
  connection.disabled = (list?.connections.length ?? 0) < 2;
  // Each pick of an agent lists its models; an answer for an agent no longer picked is dropped.
  let asked = 0;
  const listModels = async (): Promise<void> => {
    const mine = ++asked;
    const id = connection.value;
    fill(model, regenerateModelChoices(null), '');
    status.textContent = 'Listing the agent’s models…';
    const models = await api.agentModels(id || undefined).catch((err: unknown) => ({ ok: false as const, type: 'unreachable' as const, message: err instanceof Error ? err.message : String(err) }));
    if (mine !== asked) return;
    // The conversation's model is offered first on its own agent.
    const keep = id === using && current.model && models.ok && models.models.includes(current.model) ? current.model : '';
    fill(model, regenerateModelChoices(models), keep);
    status.textContent = models.ok ? '' : `Its models could not be listed: ${models.message}`;
  };
  connection.onchange = () => void listModels();
  await listModels();
  d.returnValue = '';
  return new Promise((resolve) => {
    d.addEventListener('close', () => resolve(d.returnValue === 'ok' ? regenerateOptions({ connection: connection.value, model: model.value }, using) : null), { once: true });
    d.showModal();
    (connection.disabled ? model : connection).focus();
  });
}
