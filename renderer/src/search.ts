// Search everything (issue 24) in the sidebar: the search field asks GET /api/search as the person types
// (debounced), and the answer's results replace the session list as a listbox the arrow keys move through,
// Enter opens, Esc leaves. Focus stays in the field (a combobox: aria-activedescendant names the picked
// result). The rules (staleness, what shows when) are search-model.ts's; this file is the page's side.
import { api, ApiError } from './api.js';
import { byId, clear, h } from './dom.js';
import { formatTime } from './format.js';
import {
  again,
  answered,
  emptyText,
  errorText,
  moreText,
  failed,
  moveActive,
  NO_SEARCH,
  SEARCH_DEBOUNCE_MS,
  SEARCH_LIMIT,
  SearchRequests,
  shownResults,
  shows,
  target,
  typed,
  whereFound,
  type SearchKey,
  type SearchResult,
  type SearchShows,
  type SearchState,
} from './search-model.js';

export interface SearchDeps {
  /** Open the conversation of a result, at its message when it names one. */
  open(sessionId: string, messageIndex?: number): void;
  /** What the sidebar shows changed (the list, or the results in its place). */
  changed(): void;
}

const OPTION_ID = 'search-result-';
const MOVE_KEYS = new Set<string>(['ArrowDown', 'ArrowUp']);

/** The results listbox and its two lines (nothing found, the failure): `{ el, update(state) }`. */
export class SearchResultsView {
  readonly el = byId<HTMLUListElement>('search-results');
  private readonly empty = byId('search-empty');
  private readonly error = byId('search-error');
  private readonly more = byId('search-more');
  private drawn: readonly SearchResult[] | null = null;

  constructor(private readonly choose: (index: number) => void) {}

  update(state: SearchState): void {
    const what = shows(state);
    const results = shownResults(state);
    this.el.hidden = what !== 'results';
    this.el.setAttribute('aria-busy', String(state.waiting));
    this.empty.hidden = what !== 'empty';
    this.empty.textContent = what === 'empty' ? (state.note ?? emptyText(state.answered)) : '';
    this.more.hidden = what !== 'results' || (state.complete && state.note === null);
    this.more.textContent = this.more.hidden ? '' : (state.note ?? moreText(results.length));
    this.error.hidden = what !== 'error';
    this.error.textContent = what === 'error' ? errorText(state.error ?? '') : '';
    if (results !== this.drawn) {
      this.drawn = results;
      clear(this.el);
      results.forEach((r, i) => this.el.appendChild(this.option(r, i)));
    }
    this.el.querySelectorAll<HTMLElement>('[role="option"]').forEach((li, i) => li.setAttribute('aria-selected', String(i === state.active)));
    this.el.querySelector(`#${OPTION_ID}${state.active}`)?.scrollIntoView({ block: 'nearest' });
  }

  private option(r: SearchResult, i: number): HTMLLIElement {
    const title = r.title || 'Untitled';
    return h(
      'li',
      {
        id: `${OPTION_ID}${i}`,
        role: 'option',
        class: 'search-result',
        'data-testid': 'search-result',
        'data-session-id': r.session_id,
        'data-kind': r.kind,
        'data-message-index': r.message_index,
        'aria-selected': 'false',
        // The field keeps focus: a press on a result must not take it, the click then opens the result.
        onmousedown: (e: Event) => e.preventDefault(),
        onclick: () => this.choose(i),
      },
      h(
        'span',
        { class: 'search-result-head' },
        h('span', { class: 'search-result-title', 'data-testid': 'search-result-title' }, title),
        h('span', { class: 'search-result-date muted small' }, formatTime(r.updated_at)),
      ),
      h('span', { class: 'search-result-where muted small', 'data-testid': 'search-result-where' }, whereFound(r), r.archived ? ' · archived' : ''),
      h(
        'span',
        { class: 'search-result-snippet small', 'data-testid': 'search-result-snippet' },
        r.snippet.map((s) => (s.match ? h('mark', {}, s.text) : s.text)),
      ),
    );
  }
}

/** The search field's controller: typing, the requests, the keys; it owns the search state. */
export class SessionSearch {
  private state: SearchState = NO_SEARCH;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly requests = new SearchRequests();
  private readonly view: SearchResultsView;

  constructor(
    private readonly field: HTMLInputElement,
    private readonly deps: SearchDeps,
  ) {
    this.view = new SearchResultsView((i) => this.choose(i));
    field.addEventListener('input', () => this.input());
    field.addEventListener('keydown', (e) => this.key(e));
    this.render();
  }

  /** What the sidebar shows because of the search. */
  shows(): SearchShows {
    return shows(this.state);
  }

  /** The field's text as the title filter reads it (lower case, trimmed). */
  titleFilter(): string {
    return this.state.query.toLocaleLowerCase();
  }

  /** End the search: the field empty, the list back (Esc; another profile). */
  clear(): void {
    this.field.value = '';
    this.input();
  }

  /** The conversations changed (the list was reloaded): a search shown is asked again, at once. */
  refresh(): void {
    const { state, ask } = again(this.state);
    if (!ask) return;
    clearTimeout(this.timer);
    this.set(state);
    void this.ask(ask.seq, ask.query);
  }

  private input(): void {
    const { state, ask } = typed(this.state, this.field.value);
    // Typed past (or cleared): the question in flight is no longer asked.
    if (state.seq !== this.state.seq) this.requests.drop();
    this.set(state);
    clearTimeout(this.timer);
    if (ask) this.timer = setTimeout(() => void this.ask(ask.seq, ask.query), SEARCH_DEBOUNCE_MS);
  }

  private async ask(seq: number, query: string): Promise<void> {
    const signal = this.requests.next();
    try {
      const response = await api.search(query, SEARCH_LIMIT, signal);
      this.set(answered(this.state, seq, response));
    } catch (err) {
      // Aborted because a newer query replaced it: nothing to say.
      if (signal.aborted) return;
      this.set(failed(this.state, seq, err instanceof ApiError || err instanceof Error ? err.message : String(err)));
    }
  }

  private key(e: KeyboardEvent): void {
    if (e.isComposing || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Escape') {
      if (!this.field.value && !this.state.query) return;
      // Chromium's own Escape on a search field clears it too, without our state: ours is the one.
      e.preventDefault();
      this.clear();
      return;
    }
    const count = shownResults(this.state).length;
    if (!count) return;
    if (MOVE_KEYS.has(e.key)) {
      e.preventDefault();
      this.set({ ...this.state, active: moveActive(this.state.active, e.key as SearchKey, count) });
    } else if (e.key === 'Enter' && this.state.active >= 0) {
      e.preventDefault();
      this.choose(this.state.active);
    }
  }

  private choose(index: number): void {
    const r = shownResults(this.state)[index];
    if (!r) return;
    this.set({ ...this.state, active: index });
    const { sessionId, messageIndex } = target(r);
    this.deps.open(sessionId, messageIndex);
  }

  private set(state: SearchState): void {
    if (state === this.state) return;
    const before = shows(this.state);
    const filter = this.state.query;
    this.state = state;
    this.render();
    if (shows(state) !== before || state.query !== filter) this.deps.changed();
  }

  private render(): void {
    this.view.update(this.state);
    const open = shows(this.state) === 'results';
    this.field.setAttribute('aria-expanded', String(open));
    if (open && this.state.active >= 0) this.field.setAttribute('aria-activedescendant', `${OPTION_ID}${this.state.active}`);
    else this.field.removeAttribute('aria-activedescendant');
  }
}
