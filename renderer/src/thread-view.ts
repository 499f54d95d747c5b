// The thread on screen: the stored rows of the session, then the live turn. It follows the store by key: a
// row whose key and offered actions are unchanged keeps its element, so a newer copy of the session (after a
// turn, or another window's change) adds the new rows instead of rebuilding the conversation, and a finished
// turn is drawn once, from the stored session that replaces its live view.
// A long conversation draws only its rows near the screen (thread-window.ts): spacers above and below stand for
// the rest, at heights measured once a row is drawn (kept per row key) and estimated before. When heights change
// (a row drawn for the first time, an image or formula loaded, the window resized) the row at the viewport's top
// stays where it was, unless the person is at the bottom: then the thread follows the bottom.
import { normalizeMessage, visibleRows, type MessageRow } from './message-rows.js';
import { switcherPlaces, versionSwitcher, versionText } from './version-switcher.js';
import { arrivalMessage } from './arrival-view.js';
import { actionButton, assistantMessage, attachmentChip, userMessage } from './messages.js';
import { byId, h } from './dom.js';
import { ICONS } from './dom.js';
import type { AppState } from './store.js';
import { TurnView } from './turn-view.js';
import { anchorAt, anchoredY, charsPerLine, estimateExtent, topsOf, WINDOW_FROM_ROWS, windowAt, type Anchor, type RowWindow } from './thread-window.js';

/** How long a message reveal() scrolled to stays marked (class msg-found): long enough to be seen after the scroll. */
export const FOUND_MARK_MS = 2_500;
/** Within this of the bottom the person is at the bottom: the thread follows a streaming reply. Further up they
 * are reading, and nothing pulls them back down. */
const AT_BOTTOM_SLACK_PX = 40;
/** Draw, measure, draw again: rows measured taller or shorter than estimated can change the window; a few
 * passes settle it (each one's rows are measured), and the next scroll frame finishes whatever is left. */
const MAX_LAYOUT_PASSES = 4;
/** Drawing rows a frame may spend beyond those on screen: a fling or a scrollbar jump replaces the whole window,
 * and drawing its overscan at once took frames past 200 ms on the shared machine (bench/thread-scroll.mjs). */
const DRAW_BUDGET_MS = 8;

export interface ThreadActions {
  regenerate(): void;
  /** Put a message of the person's back in the composer: sending it makes a new version from there. */
  edit(row: MessageRow): void;
  /** Show version `version` of the conversation from the message at `index` on. */
  showVersion(index: number, version: number): void;
}

/** A stored row's identity: rows are appended, or a version replaced from some row on (new times, new versions). */
export function rowKey(sessionId: string, index: number, r: MessageRow): string {
  return [sessionId, index, r.role, r.time ?? '', r.text.length, r.partial, r.error, r.attachments.length, r.versions ? versionText(r.versions) : ''].join('|');
}

interface Placed {
  /** The key and what the row offers (Edit, Regenerate, the last outcome): a change rebuilds this row only. */
  signature: string;
  el: HTMLElement;
  /** Its place among the visible rows. */
  at: number;
}

/** What every row's actions depend on, from the state the rows were last drawn from. */
interface RowContext {
  sessionId: string;
  busy: boolean;
  canAsk: boolean;
  editing: number | null;
  outcome: AppState['outcome'];
  switchers: Map<number, MessageRow>;
}

/** Where the viewport goes after a draw: the bottom (following the conversation), or kept on an anchor row. */
type Target = 'bottom' | Anchor;

export class ThreadView {
  readonly el = byId('messages');
  private readonly empty = byId('empty-state');
  /** Stand-ins for the rows not drawn above and below the window (hidden while every row is drawn). */
  private readonly above = h('div', { class: 'thread-spacer', 'aria-hidden': 'true', hidden: true });
  private readonly below = h('div', { class: 'thread-spacer', 'aria-hidden': 'true', hidden: true });
  /** Every visible row of the session, their keys and extents (height and the gap after it), in order. */
  private all: MessageRow[] = [];
  private keys: string[] = [];
  private extents: number[] = [];
  private tops: Float64Array | null = null;
  /** Extents of rows drawn at least once, by key: a row drawn again, or scrolled past, keeps its real height. */
  private measured = new Map<string, number>();
  private context: RowContext = { sessionId: '', busy: false, canAsk: false, editing: null, outcome: null, switchers: new Map() };
  /** The rows drawn, by key. */
  private rows = new Map<string, Placed>();
  private readonly keyOf = new WeakMap<Element, string>();
  private windowed = false;
  /** The person is at the bottom: new rows, a streaming reply and late-loading content keep the bottom in view. */
  private pinned = true;
  private found: { index: number; timer: ReturnType<typeof setTimeout> } | null = null;
  private frame = 0;
  private following = 0;
  private width = 0;
  private box: { pad: number; gap: number } | null = null;
  private readonly sizes = new ResizeObserver((entries) => this.resized(entries));
  private live: { streamId: string; view: TurnView } | null = null;
  /**
   * Messages written while the turn runs (session.queued_messages: a note, quick capture, an arrival): drawn after
   * the reply being written, where they will be stored when it ends (server/store/queued.ts). Rebuilt when the list
   * changes; always the thread's last element.
   */
  private readonly waiting = h('div', { class: 'queued-rows', 'data-testid': 'queued-rows', hidden: true });
  private waitingFrom: unknown = undefined;
  /** What the stored rows were last drawn from: the same inputs draw the same rows, so a turn's frames skip them. */
  private drawnFrom: unknown[] = [];

  constructor(private readonly actions: ThreadActions) {
    this.el.append(this.above, this.below);
    this.sizes.observe(this.el);
    this.el.addEventListener('scroll', () => this.scrolled(), { passive: true });
  }

  update(state: AppState): void {
    const session = state.session;
    const id = session?.session_id;
    const turn = state.turn && state.turn.sessionId === id ? state.turn : null;
    const busy = turn?.status === 'streaming' || Boolean(session?.active_stream_id);
    const outcome = state.outcome?.sessionId === id ? state.outcome : null;
    const inputs = [session, busy, outcome, state.agentReady, state.editing];
    let moved = false;
    let redraw = false;
    let anchor: Anchor | null = null;
    if (inputs.some((v, i) => v !== this.drawnFrom[i])) {
      // Where the person is reading, before the rows change under it.
      if (this.windowed) anchor = this.anchorNow();
      this.drawnFrom = inputs;
      moved = this.setRows(state, busy);
      redraw = true;
    }
    moved = this.drawLive(turn) || moved;
    moved = this.drawWaiting(session) || moved;
    this.empty.hidden = this.all.length > 0 || busy || Boolean(turn) || !this.waiting.hidden;
    // A row added or removed, a turn begun or ended: the conversation moved on, and the thread goes to its end.
    if (moved) this.pinned = true;
    if (redraw || moved) this.place(this.pinned ? 'bottom' : (anchor ?? this.anchorNow()));
    else if (this.pinned && turn) this.followBottom();
  }

  /** A streaming reply grew: to the bottom once a frame (not once a token: each would lay the page out). */
  private followBottom(): void {
    if (this.following) return;
    this.following = requestAnimationFrame(() => {
      this.following = 0;
      if (this.pinned) this.el.scrollTop = this.el.scrollHeight;
    });
  }

  /**
   * Scroll the stored row at `messageIndex` of session.messages (a row's `index`) into view, drawing it if it is
   * not, and mark it (class msg-found) for FOUND_MARK_MS. False when no visible row has that index.
   */
  reveal(messageIndex: number): boolean {
    const at = this.all.findIndex((r) => r.index === messageIndex);
    if (at < 0) return false;
    this.pinned = false;
    this.mark(messageIndex);
    if (this.windowed) {
      // Its middle in the middle of the viewport; a row taller than the viewport shows its top.
      const space = this.el.clientHeight - (this.extents[at] ?? 0);
      this.place({ index: at, offset: -Math.max(0, space / 2) });
    }
    const placed = this.rows.get(this.keys[at] ?? '');
    if (placed && !this.windowed) placed.el.scrollIntoView({ block: 'center' });
    placed?.el.classList.add('msg-found');
    return true;
  }

  private mark(messageIndex: number): void {
    if (this.found) clearTimeout(this.found.timer);
    for (const { el } of this.rows.values()) el.classList.remove('msg-found');
    const timer = setTimeout(() => {
      if (this.found?.timer !== timer) return;
      this.found = null;
      for (const { el } of this.rows.values()) el.classList.remove('msg-found');
    }, FOUND_MARK_MS);
    this.found = { index: messageIndex, timer };
  }

  /** The session's rows, keys and extents; true when a row was added or removed (its key is new or gone). */
  private setRows(state: AppState, busy: boolean): boolean {
    const session = state.session;
    const id = session?.session_id ?? '';
    const rows = visibleRows(session?.messages ?? []);
    const keys = rows.map((r, i) => rowKey(id, i, r));
    const before = new Set(this.keys);
    const moved = keys.length !== this.keys.length || keys.some((k) => !before.has(k));
    const { gap } = this.metrics();
    const perLine = charsPerLine(this.el.clientWidth);
    const measured = new Map<string, number>();
    this.extents = rows.map((r, i) => {
      const known = this.measured.get(keys[i]!);
      if (known === undefined) return estimateExtent(r.text, perLine, gap);
      measured.set(keys[i]!, known);
      return known;
    });
    // Only this session's rows are kept: the cache is as large as the conversation on screen.
    this.measured = measured;
    this.all = rows;
    this.keys = keys;
    this.tops = null;
    this.context = {
      sessionId: id,
      busy,
      canAsk: state.agentReady,
      editing: state.editing?.sessionId === id ? state.editing.index : null,
      outcome: state.outcome?.sessionId === id ? state.outcome : null,
      switchers: switcherPlaces(rows),
    };
    return moved;
  }

  private currentTops(): Float64Array {
    return (this.tops ??= topsOf(this.extents));
  }

  /** The thread's top padding and the gap between rows: read once, again when its size changes (a narrow
   * window's rules pad it less). Reading the computed style each time cost scroll frames a style recalculation. */
  private metrics(): { pad: number; gap: number } {
    if (this.box) return this.box;
    const style = getComputedStyle(this.el);
    return (this.box = { pad: parseFloat(style.paddingTop) || 0, gap: parseFloat(style.rowGap) || 0 });
  }

  /** The row at the viewport's top and how far into it the viewport's top is. */
  private anchorNow(): Anchor {
    return anchorAt(this.currentTops(), this.el.scrollTop - this.metrics().pad);
  }

  /** Draw the rows for `target` (all of them in a short conversation), measure them, and scroll to it. */
  private place(target: Target): void {
    const n = this.all.length;
    this.windowed = n >= WINDOW_FROM_ROWS;
    this.el.classList.toggle('thread-windowed', this.windowed);
    if (!this.windowed) {
      this.draw({ start: 0, end: n });
      this.measure();
      this.sizeSpacers();
      if (target === 'bottom') this.el.scrollTop = this.el.scrollHeight;
      return;
    }
    const { pad, gap } = this.metrics();
    const deadline = performance.now() + DRAW_BUDGET_MS;
    let short = false;
    for (let pass = 0; pass < MAX_LAYOUT_PASSES; pass++) {
      const tops = this.currentTops();
      const view = this.el.clientHeight;
      const live = this.live ? this.live.view.el.getBoundingClientRect().height + gap : 0;
      const y = target === 'bottom' ? tops[n]! + live - view + pad : anchoredY(tops, target);
      short = this.draw(windowAt(tops, y, view), windowAt(tops, y, view, 0), deadline);
      if (!this.measure()) break;
      // Out of time: the next frame draws what the measured heights moved on screen (a row on screen each pass
      // cost up to 600 ms a frame at 10 ms a row on the loaded machine).
      if (performance.now() >= deadline) {
        short = true;
        break;
      }
    }
    this.sizeSpacers();
    // The overscan left out for time is drawn in the next frames, a budget's worth each.
    if (short) this.schedule();
    if (target === 'bottom') this.el.scrollTop = this.el.scrollHeight;
    else this.el.scrollTop = anchoredY(this.currentTops(), target) + pad;
  }

  /**
   * The rows of `win` in order between the spacers, by key: a row drawn with the same signature is kept. The rows
   * of `view` (those on screen) are always drawn; the overscan around them grows one row at a time, each side in
   * turn, while `deadline` (performance.now()) is ahead or the row is already drawn. True when `win` was cut short.
   */
  private draw(win: RowWindow, view: RowWindow = win, deadline = Infinity): boolean {
    const built = new Map<number, Placed>();
    const take = (i: number, must: boolean): boolean => {
      const r = this.all[i]!;
      const key = this.keys[i]!;
      const signature = this.signature(i, key, r);
      const known = this.rows.get(key);
      if (known && known.signature === signature) {
        known.at = i;
        built.set(i, known);
        return true;
      }
      if (!must && performance.now() >= deadline) return false;
      const el = this.rowElement(i, r);
      this.keyOf.set(el, key);
      this.sizes.observe(el);
      if (known) {
        this.sizes.unobserve(known.el);
        known.el.replaceWith(el);
      }
      built.set(i, { signature, el, at: i });
      return true;
    };
    for (let i = view.start; i < view.end; i++) take(i, true);
    let start = view.start;
    let end = view.end;
    for (let up = start > win.start, down = end < win.end; up || down; ) {
      if (down) down = take(end, false) && ++end < win.end;
      if (up) up = take(start - 1, false) && --start > win.start;
    }
    const next = new Map<string, Placed>();
    for (let i = start; i < end; i++) next.set(this.keys[i]!, built.get(i)!);
    for (const [key, placed] of this.rows) {
      if (next.get(key) !== placed) {
        this.sizes.unobserve(placed.el);
        placed.el.remove();
      }
    }
    this.rows = next;
    // In order, after the upper spacer: only an element out of place moves; the lower spacer and the live turn follow.
    let at: ChildNode | null = this.above.nextSibling;
    for (const { el } of next.values()) {
      if (at === el) at = el.nextSibling;
      else this.el.insertBefore(el, at);
    }
    return start > win.start || end < win.end;
  }

  private signature(i: number, key: string, r: MessageRow): string {
    const { busy, canAsk, editing, outcome, switchers } = this.context;
    const last = i === this.all.length - 1;
    const edit = r.role === 'user' && !busy;
    const regenerate = r.role !== 'user' && last && !busy && canAsk;
    const said = r.role !== 'user' && last ? [outcome?.usage] : [];
    const fork = switchers.get(i);
    return JSON.stringify([key, edit, regenerate, said, fork && [fork.index, versionText(fork.versions!)], busy, editing === r.index]);
  }

  private rowElement(i: number, r: MessageRow): HTMLElement {
    const { sessionId, busy, canAsk, editing, outcome, switchers } = this.context;
    const last = i === this.all.length - 1;
    const edit = r.role === 'user' && !busy;
    const regenerate = r.role !== 'user' && last && !busy && canAsk;
    const fork = switchers.get(i);
    const switcher = fork ? versionSwitcher(fork.versions!, (v) => this.actions.showVersion(fork.index, v), busy) : null;
    const el = r.arrival
      ? arrivalMessage(r, r.arrival, (a) => attachmentChip(a, sessionId))
      : r.role === 'user'
        ? userMessage(r.text, r.attachments, r.time, sessionId, switcher, edit ? actionButton('edit-message', 'Edit: send it again changed, as a new version', ICONS.edit, () => this.actions.edit(r)) : null)
        : assistantMessage(r, last, { busy, regenerate: regenerate ? () => this.actions.regenerate() : undefined, lastUsage: outcome?.usage, switcher }, sessionId);
    // Where the row is in session.messages: what reveal() and Edit name.
    el.dataset.messageIndex = String(r.index);
    // The message being edited is marked, so the person sees which one Send will replace.
    if (editing === r.index && r.role === 'user') el.classList.add('msg-editing');
    if (this.found?.index === r.index) el.classList.add('msg-found');
    return el;
  }

  /** Measure the drawn rows not measured yet; true when an extent differs from what was assumed. */
  private measure(): boolean {
    const { gap } = this.metrics();
    let changed = false;
    for (const [key, placed] of this.rows) {
      if (this.measured.has(key)) continue;
      changed = this.setExtent(placed, key, placed.el.getBoundingClientRect().height + gap) || changed;
    }
    return changed;
  }

  private setExtent(placed: Placed, key: string, extent: number): boolean {
    this.measured.set(key, extent);
    if (Math.abs((this.extents[placed.at] ?? 0) - extent) < 0.5) return false;
    this.extents[placed.at] = extent;
    this.tops = null;
    return true;
  }

  private sizeSpacers(): void {
    const tops = this.currentTops();
    const n = this.all.length;
    const { gap } = this.metrics();
    const first = this.rows.values().next().value?.at ?? 0;
    const end = first + this.rows.size;
    // Each spacer stands for its rows and the gaps between them; the container's gap stands for the last one.
    this.above.hidden = !this.windowed || first === 0;
    this.below.hidden = !this.windowed || end >= n;
    this.above.style.height = `${Math.max(0, tops[first]! - gap)}px`;
    this.below.style.height = `${Math.max(0, tops[n]! - tops[Math.min(end, n)]! - gap)}px`;
  }

  /** Drawn rows changed height (images, math, code loaded; the window resized): keep the reading place. */
  private resized(entries: ResizeObserverEntry[]): void {
    const before = this.windowed ? this.anchorNow() : null;
    const { gap } = this.metrics();
    let changed = false;
    for (const entry of entries) {
      if (entry.target === this.el) {
        // Another width wraps every line differently: rows not on screen are estimated again.
        const width = entry.contentRect.width;
        this.box = null;
        if (width !== this.width && this.width !== 0) {
          this.measured.clear();
          const perLine = charsPerLine(width);
          this.extents = this.all.map((r) => estimateExtent(r.text, perLine, gap));
          this.tops = null;
          changed = true;
        }
        this.width = width;
        continue;
      }
      const key = this.keyOf.get(entry.target);
      const placed = key === undefined ? undefined : this.rows.get(key);
      if (!placed || key === undefined) continue;
      const height = entry.borderBoxSize[0]?.blockSize ?? placed.el.getBoundingClientRect().height;
      changed = this.setExtent(placed, key, height + gap) || changed;
    }
    if (!changed || !this.windowed) return;
    this.place(this.pinned || !before ? 'bottom' : before);
  }

  private scrolled(): void {
    this.pinned = this.el.scrollTop + this.el.clientHeight >= this.el.scrollHeight - AT_BOTTOM_SLACK_PX;
    if (this.windowed) this.schedule();
  }

  /** Once a frame: the window follows the scroll, keeping the row the person is reading where it is. */
  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (this.windowed) this.place(this.anchorNow());
    });
  }

  /** The rows waiting for the running turn, below it; true when they changed. */
  private drawWaiting(session: AppState['session']): boolean {
    const queued = session?.queued_messages;
    // After the live turn, which drawLive may just have appended.
    if (this.el.lastChild !== this.waiting) this.el.appendChild(this.waiting);
    if (queued === this.waitingFrom) return false;
    this.waitingFrom = queued;
    const rows = Array.isArray(queued) ? queued : [];
    const sessionId = session?.session_id ?? '';
    const drawn = rows.map((m, i) => {
      const r = normalizeMessage(m, -1 - i);
      const el = r.arrival ? arrivalMessage(r, r.arrival, (a) => attachmentChip(a, sessionId)) : userMessage(r.text, r.attachments, r.time, sessionId);
      el.classList.add('msg-queued');
      el.querySelector('.msg-head')?.appendChild(h('span', { class: 'badge', 'data-testid': 'queued-badge', title: 'Written while the reply was being written: stored after it, and sent with your next message' }, 'After this reply'));
      return el;
    });
    this.waiting.replaceChildren(...drawn);
    const was = !this.waiting.hidden;
    this.waiting.hidden = drawn.length === 0;
    return drawn.length > 0 || was;
  }

  /** The live turn below the rows: kept while its stream is the store's turn; true when it came or went. */
  private drawLive(turn: AppState['turn']): boolean {
    if (this.live && this.live.streamId !== turn?.streamId) {
      this.live.view.el.remove();
      this.live = null;
      if (!turn) return true;
    }
    if (!turn) return false;
    if (this.live) {
      this.live.view.update(turn);
      if (turn.ended) this.live.view.flush();
      return false;
    }
    this.live = { streamId: turn.streamId, view: new TurnView(turn) };
    // Before the rows waiting for it (drawWaiting), which stay last.
    this.el.insertBefore(this.live.view.el, this.waiting.parentNode === this.el ? this.waiting : null);
    return true;
  }
}
