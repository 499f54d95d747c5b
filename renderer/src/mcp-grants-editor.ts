// The grants editor of the MCP panel (issue 39): what one agent may read — everything, or only the conversations,
// the folders (those in one at the time of each read), the Inbox and the workspaces chosen — and until when. Used by "Connect an agent" and by each agent's "Access".
// Native controls only (radios, checkboxes, a date field), so every part is reachable and operable by keys.
import type { FolderSummary, SessionSummary } from './api.js';
import { h } from './dom.js';
import { formatTime } from './format.js';
import { EMPTY_CHOICE, type GrantChoice } from './mcp-grants-model.js';

/** Conversations listed at once: the rest are found by typing part of a title (a store may hold thousands). */
export const MAX_LISTED_CONVERSATIONS = 50;

let editors = 0;

export interface GrantsEditor {
  el: HTMLElement;
  read(): GrantChoice;
}

export function grantsEditor(initial: GrantChoice, sessions: readonly SessionSummary[], workspaces: readonly string[], testid: string, folders: readonly FolderSummary[] = []): GrantsEditor {
  const n = ++editors;
  const chosen = new Set(initial.conversations);
  // A granted folder deleted since is not offered (it grants nothing); saving drops it.
  const folderBoxes = folders.map((f) => h('input', { type: 'checkbox', value: f.id, 'data-testid': `${testid}-folder`, checked: initial.folders.includes(f.id) }));
  const addedWorkspaces = [...initial.workspaces];
  let filter = '';

  const allRadio = h('input', { type: 'radio', name: `grant-scope-${n}`, value: 'all', 'data-testid': `${testid}-all`, checked: initial.all });
  const someRadio = h('input', { type: 'radio', name: `grant-scope-${n}`, value: 'some', 'data-testid': `${testid}-some`, checked: !initial.all });
  const inbox = h('input', { type: 'checkbox', 'data-testid': `${testid}-inbox`, checked: initial.inbox });
  const expires = h('input', { type: 'date', class: 'mcp-grant-date', id: `grant-expires-${n}`, 'data-testid': `${testid}-expires`, value: initial.expires });
  const find = h('input', {
    type: 'search',
    class: 'mcp-grant-find',
    placeholder: 'Find a conversation',
    'aria-label': 'Find a conversation',
    'data-testid': `${testid}-find`,
  });
  const list = h('ul', { class: 'mcp-grant-list', 'aria-label': 'Conversations', 'data-testid': `${testid}-conversations` });
  const listNote = h('p', { class: 'muted small', 'aria-live': 'polite' });
  const wsInput = h('input', { type: 'text', class: 'mcp-grant-ws-input', 'aria-label': 'Workspace folder (full path)', placeholder: '/path/to/folder', list: `grant-ws-${n}`, 'data-testid': `${testid}-ws-input` });
  const wsList = h('ul', { class: 'mcp-grant-ws', 'aria-label': 'Chosen workspaces', 'data-testid': `${testid}-workspaces` });
  const some = h('fieldset', { class: 'mcp-grant-some', 'data-testid': `${testid}-choose` });

  const drawConversations = () => {
    const needle = filter.trim().toLowerCase();
    // The chosen ones stay in view, then the newest activity first.
    const matching = sessions.filter((s) => chosen.has(s.session_id) || needle === '' || s.title.toLowerCase().includes(needle));
    const ordered = [...matching].sort((a, b) => Number(chosen.has(b.session_id)) - Number(chosen.has(a.session_id)) || b.updated_at.localeCompare(a.updated_at));
    const shown = ordered.slice(0, MAX_LISTED_CONVERSATIONS);
    list.replaceChildren(
      ...shown.map((s) => {
        const box = h('input', {
          type: 'checkbox',
          value: s.session_id,
          'data-testid': `${testid}-conversation`,
          checked: chosen.has(s.session_id),
          onchange: (e: Event) => {
            if ((e.target as HTMLInputElement).checked) chosen.add(s.session_id);
            else chosen.delete(s.session_id);
          },
        });
        return h('li', {}, h('label', { class: 'mcp-check' }, box, h('span', { class: 'mcp-grant-title' }, s.title || 'Untitled'), h('span', { class: 'muted small' }, formatTime(s.updated_at))));
      }),
    );
    const hidden = ordered.length - shown.length;
    listNote.textContent =
      sessions.length === 0 ? 'No conversations yet.' : shown.length === 0 ? 'No conversation has that in its title.' : hidden > 0 ? `${hidden} more: type part of a title to find them.` : '';
  };

  const drawWorkspaces = () => {
    wsList.replaceChildren(
      ...addedWorkspaces.map((w, i) =>
        h(
          'li',
          { 'data-testid': `${testid}-workspace` },
          h('code', {}, w),
          h(
            'button',
            {
              class: 'btn btn-small',
              type: 'button',
              'aria-label': `Remove the workspace ${w}`,
              onclick: () => {
                addedWorkspaces.splice(i, 1);
                drawWorkspaces();
                wsInput.focus();
              },
            },
            'Remove',
          ),
        ),
      ),
    );
  };

  const addWorkspace = () => {
    const value = wsInput.value.trim();
    if (value !== '' && !addedWorkspaces.includes(value)) addedWorkspaces.push(value);
    wsInput.value = '';
    drawWorkspaces();
  };
  wsInput.addEventListener('keydown', (e) => {
    // Enter adds the folder (it must not submit an enclosing form).
    if (e.key === 'Enter') {
      e.preventDefault();
      addWorkspace();
    }
  });
  find.addEventListener('keydown', (e) => {
    // Enter in the search box narrows the list; it must not make the key (an enclosing form's implicit submit).
    if (e.key === 'Enter') e.preventDefault();
  });
  find.addEventListener('input', () => {
    filter = find.value;
    drawConversations();
  });

  const syncScope = () => {
    some.disabled = allRadio.checked;
  };
  allRadio.addEventListener('change', syncScope);
  someRadio.addEventListener('change', syncScope);

  // Folders beside the conversations, shown once the person has any.
  const folderChoice =
    folders.length === 0
      ? []
      : [
          h(
            'fieldset',
            { class: 'mcp-grant-folders', 'data-testid': `${testid}-folders` },
            h('legend', { class: 'field-label' }, 'Folders'),
            h('p', { class: 'muted small' }, 'A folder grants the conversations in it at the time of each read: one moved out is no longer readable.'),
            h(
              'ul',
              { class: 'mcp-grant-list' },
              ...folders.map((f, i) =>
                h('li', {}, h('label', { class: 'mcp-check' }, folderBoxes[i]!, h('span', { class: 'mcp-grant-title' }, f.name), h('span', { class: 'muted small' }, f.count === 1 ? '1 conversation' : `${f.count} conversations`))),
              ),
            ),
          ),
        ];
  some.append(
    h('legend', { class: 'field-label' }, 'Only these'),
    h('label', { class: 'mcp-check' }, inbox, 'The Inbox'),
    ...folderChoice,
    find,
    list,
    listNote,
    h(
      'div',
      { class: 'mcp-grant-ws-row' },
      wsInput,
      h('datalist', { id: `grant-ws-${n}` }, ...workspaces.map((w) => h('option', { value: w }))),
      h('button', { class: 'btn btn-small', type: 'button', 'data-testid': `${testid}-ws-add`, onclick: addWorkspace }, 'Add workspace'),
    ),
    h('p', { class: 'muted small' }, 'A workspace grants every conversation working in that folder or below it.'),
    wsList,
  );
  drawConversations();
  drawWorkspaces();
  syncScope();

  const el = h(
    'fieldset',
    { class: 'mcp-grants', 'data-testid': testid },
    h('legend', { class: 'field-label' }, 'What it may read'),
    h('label', { class: 'mcp-check' }, allRadio, 'All conversations (not those kept out of MCP)'),
    h('label', { class: 'mcp-check' }, someRadio, 'Only what I choose'),
    some,
    h('div', { class: 'mcp-grant-expiry' }, h('label', { class: 'field-label', for: `grant-expires-${n}` }, 'Until (optional)'), expires),
  );

  return {
    el,
    read: () => ({
      ...EMPTY_CHOICE,
      all: allRadio.checked,
      conversations: [...chosen],
      folders: folderBoxes.filter((b) => b.checked).map((b) => b.value),
      inbox: inbox.checked,
      // A folder typed but not yet added counts: the person meant it.
      workspaces: wsInput.value.trim() ? [...addedWorkspaces, wsInput.value.trim()] : [...addedWorkspaces],
      expires: expires.value,
    }),
  };
}
