// The thread on screen: the stored rows of the session, then the live turn. It follows the store by key: a
// row whose key and offered actions are unchanged keeps its element, so a newer copy of the session (after a
// turn, or another window's change) adds the new rows instead of rebuilding the conversation, and a finished
// turn is drawn once, from the stored session that replaces its live view.
// A long conversation draws only its rows near the screen (thread-window.ts): spacers above and below stand for
// the rest, at heights measured once a row is drawn (kept per row key) and estimated before. When heights change
// (a row drawn for the first time, an image or formula loaded, the window resized) the row at the viewport's top
// stays where it was, unless the person is at the bottom: then the thread follows the bottom.
// What a row offers is decided in thread-rows.ts, what is known of the rows' heights in row-extents.ts, and the
// messages waiting for the running turn are queued-rows-view.ts's: this file draws and places.
import { visibleRows, type MessageRow } from './message-rows.js';
import { versionSwitcher } from './version-switcher.js';
import { arrivalMessage } from './arrival-view.js';
import { actionButton, assistantMessage, attachmentChip, userMessage } from './messages.js';
import { byId, h, ICONS } from './dom.js';
import type { AppState } from './store.js';
import { TurnView } from './turn-view.js';
import { QueuedRowsView } from './queued-rows-view.js';
import { RowExtents } from './row-extents.js';
import { MaskedValues } from './reveal.js';
import { NO_ROWS, rowContext, rowKey, rowOffer, rowSignature, type RowContext } from './thread-rows.js';
import { hasOlder, offsetOf } from './session-pages.js';
import { anchorAt, anchoredY, charsPerLine, WINDOW_FROM_ROWS, windowAt, type Anchor, type RowWindow } from './thread-window.js';

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
/** Older rows are read (a session held from its tail: session-pages.ts) once the viewport's top is within this
 * many screens of the first row held: read before the person reaches it, so scrolling up does not stop there. */
const LOAD_OLDER_SCREENS = 2;

export interface ThreadActions {
  regenerate(): void;
  /** "Regenerate with…" another agent or model (regenerate-with.ts). */
  regenerateWith?(): void;
  /** Put a message of the person's back in the composer: sending it makes a new version from there. */
  edit(row: MessageRow): void;
  /** Show version `version` of the conversation from the message at `index` on. */
  showVersion(index: number, version: number): void;
  /** Read rows older than those held (the session on screen was read from its tail). */
  loadOlder(): void;
}

interface Placed {
  /** The key and what the row offers (Edit, Regenerate, the last outcome): a change rebuilds this row only. */
  signature: string;
  el: HTMLElement;
  /** Its place among the visible rows. */
  at: number;
}

/** Where the viewport goes after a draw: the bottom (following the conversation), or kept on an anchor row. */
type Target = 'bottom' | Anchor;

export class ThreadView {
  readonly el = byId('messages');
  private readonly empty = byId('empty-state');
  /** Stand-ins for the rows not drawn above and below the window (hidden while every row is drawn). */
  private readonly above = h('div', { class: 'thread-spacer', 'aria-hidden': 'true', hidden: true });
  private readonly below = h('div', { class: 'thread-spacer', 'aria-hidden': 'true', hidden: true });
  /** Every visible row of the session and their keys, in order; their extents (height and the gap after it). */
  private all: MessageRow[] = [];
  private keys: string[] = [];
  private readonly extents = new RowExtents();
  private context: RowContext = NO_ROWS;
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
  private height = 0;
  /** Where the view last scrolled the thread itself; -1 once a scroll event has been seen since. */
  private placedAt = -1;
  private box: { pad: number; gap: number } | null = null;
  private readonly sizes = new ResizeObserver((entries) => this.resized(entries));
  private live: { streamId: string; view: TurnView } | null = null;
  /** Messages written while the turn runs: always the thread's last element. */
  private readonly waiting = new QueuedRowsView();
  /** "Show" on the masked values of the rows drawn (reveal.ts). */
  private readonly masked = new MaskedValues();
  /** What the stored rows were last drawn from: the same inputs draw the same rows, so a turn's frames skip them. */
  private drawnFrom: unknown[] = [];
  /** The session held has older rows not read yet. */
  private older = false;

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
      const rows = this.setRows(state, busy);
      moved = rows.moved;
      // Older rows read above: the row being read moved down by as many places, and stays on screen where it was.
      if (anchor && rows.prepended) anchor = { index: anchor.index + rows.prepended, offset: anchor.offset };
      redraw = true;
    }
    this.older = hasOlder(session);
    moved = this.drawLive(turn) || moved;
    moved = this.drawWaiting(session) || moved;
    this.empty.hidden = this.all.length > 0 || busy || Boolean(turn) || !this.waiting.el.hidden;
    // A row added or removed, a turn begun or ended: the conversation moved on, and the thread goes to its end.
    if (moved) this.pinned = true;
    if (redraw || moved) this.place(this.pinned ? 'bottom' : (anchor ?? this.anchorNow()));
    else if (this.pinned && turn) this.followBottom();
    // Rows held that do not reach two screens up (a tail of short rows, or tool rows hidden): read older ones now.
    if (redraw) this.wantOlder();
  }

  /** The viewport is near the first row held and older rows are stored: ask for them (app.ts keeps one read at a time). */
  private wantOlder(): void {
    if (this.older && this.el.scrollTop < this.el.clientHeight * LOAD_OLDER_SCREENS) this.actions.loadOlder();
  }

  /** A streaming reply grew: to the bottom once a frame (not once a token: each would lay the page out). */
  private followBottom(): void {
    if (this.following) return;
    this.following = requestAnimationFrame(() => {
      this.following = 0;
      if (this.pinned) this.scrollTo(this.el.scrollHeight);
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
      const space = this.el.clientHeight - this.extents.at(at);
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

  /**
   * The session's rows, keys and extents. `moved`: a row was added or removed (its key is new or gone), unless
   * only older rows came before those held (`prepended`, how many: read as the person scrolled up).
   */
  private setRows(state: AppState, busy: boolean): { moved: boolean; prepended: number } {
    const session = state.session;
    const id = session?.session_id ?? '';
    const rows = visibleRows(session?.messages ?? [], offsetOf(session));
    const keys = rows.map((r) => rowKey(id, r.index, r));
    const added = keys.length - this.keys.length;
    const prepended = added > 0 && this.keys.length > 0 && this.keys.every((k, i) => keys[added + i] === k) ? added : 0;
    const before = new Set(this.keys);
    const moved = !prepended && (keys.length !== this.keys.length || keys.some((k) => !before.has(k)));
    this.extents.reset(keys, rows.map((r) => r.text), charsPerLine(this.el.clientWidth), this.metrics().gap);
    this.all = rows;
    this.keys = keys;
    this.context = rowContext(state, rows, busy);
    return { moved, prepended };
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
    return anchorAt(this.extents.tops(), this.el.scrollTop - this.metrics().pad);
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
      if (target === 'bottom') this.scrollTo(this.el.scrollHeight);
      return;
    }
    const { pad, gap } = this.metrics();
    const deadline = performance.now() + DRAW_BUDGET_MS;
    let short = false;
    for (let pass = 0; pass < MAX_LAYOUT_PASSES; pass++) {
      const tops = this.extents.tops();
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
    this.scrollTo(target === 'bottom' ? this.el.scrollHeight : anchoredY(this.extents.tops(), target) + pad);
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
      const signature = rowSignature(this.context, i, this.all.length, key, r);
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

  private rowElement(i: number, r: MessageRow): HTMLElement {
    const { sessionId, busy, editing, outcome } = this.context;
    const { last, edit, regenerate, fork } = rowOffer(this.context, i, this.all.length, r);
    const switcher = fork ? versionSwitcher(fork.level, (v) => this.actions.showVersion(fork.fork.index, v), busy) : null;
    const el = r.arrival
      ? arrivalMessage(r, r.arrival, (a) => attachmentChip(a, sessionId, 'arrival'))
      : r.role === 'user'
        ? userMessage(r.text, r.attachments, r.time, sessionId, switcher, edit ? actionButton('edit-message', 'Edit: send it again changed, as a new version', ICONS.edit, () => this.actions.edit(r)) : null)
        : assistantMessage(r, last, { busy, regenerate: regenerate ? () => this.actions.regenerate() : undefined, regenerateWith: regenerate && this.actions.regenerateWith ? () => this.actions.regenerateWith?.() : undefined, lastUsage: outcome?.usage, switcher }, sessionId);
    // Where the row is in session.messages: what reveal() and Edit name.
    el.dataset.messageIndex = String(r.index);
    // The message being edited is marked, so the person sees which one Send will replace.
    if (editing === r.index && r.role === 'user') el.classList.add('msg-editing');
    if (this.found?.index === r.index) el.classList.add('msg-found');
    this.masked.decorate(el, sessionId, r);
    return el;
  }

  /** Measure the drawn rows not measured yet; true when an extent differs from what was assumed. */
  private measure(): boolean {
    const { gap } = this.metrics();
    let changed = false;
    for (const [key, placed] of this.rows) {
      if (this.extents.isMeasured(key)) continue;
      changed = this.extents.set(placed.at, key, placed.el.getBoundingClientRect().height + gap) || changed;
    }
    return changed;
  }

  private sizeSpacers(): void {
    const tops = this.extents.tops();
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
    let shorter = false;
    for (const entry of entries) {
      if (entry.target === this.el) {
        // The composer grew (a draft restored, a line of context) after the thread went to its end: still there.
        shorter = entry.contentRect.height < this.height;
        this.height = entry.contentRect.height;
        // Another width wraps every line differently: rows not on screen are estimated again.
        const width = entry.contentRect.width;
        this.box = null;
        if (width !== this.width && this.width !== 0) {
          this.extents.reestimate(this.all.map((r) => r.text), charsPerLine(width), gap);
          changed = true;
        }
        this.width = width;
        continue;
      }
      const key = this.keyOf.get(entry.target);
      const placed = key === undefined ? undefined : this.rows.get(key);
      if (!placed || key === undefined) continue;
      const height = entry.borderBoxSize[0]?.blockSize ?? placed.el.getBoundingClientRect().height;
      changed = this.extents.set(placed.at, key, height + gap) || changed;
    }
    if (!changed || !this.windowed) {
      if (shorter && this.pinned) this.scrollTo(this.el.scrollHeight);
      return;
    }
    this.place(this.pinned || !before ? 'bottom' : before);
  }

  /** Scroll the thread itself (not the person): where it lands is remembered, so its scroll event is told apart. */
  private scrollTo(y: number): void {
    this.el.scrollTop = y;
    this.placedAt = this.el.scrollTop;
  }

  private scrolled(): void {
    // The view's own scroll, seen after the thread got shorter (the header or composer grew in the same frame as a
    // tail was placed: 1 px past the slack left a tall last row cut): what the person follows is unchanged.
    const own = this.el.scrollTop === this.placedAt;
    this.placedAt = -1;
    if (!own) this.pinned = this.el.scrollTop + this.el.clientHeight >= this.el.scrollHeight - AT_BOTTOM_SLACK_PX;
    if (this.windowed) this.schedule();
    this.wantOlder();
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
    // After the live turn, which drawLive may just have appended.
    if (this.el.lastChild !== this.waiting.el) this.el.appendChild(this.waiting.el);
    return this.waiting.update(session);
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
    this.el.insertBefore(this.live.view.el, this.waiting.el.parentNode === this.el ? this.waiting.el : null);
    return true;
  }
}
