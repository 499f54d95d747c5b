// "Show" on a masked value (issue 38 item 10). Every text the server sends is masked (a screen may be shared, and
// every local page holding the token could read it); the person at the keyboard may see one value's original, in
// the row they are looking at, for as long as it stays drawn: nothing is kept, so a redraw, a reload or another
// window shows the mask again. Copy, export and search keep the mask. Where the masks are comes from POST
// /api/session/masks (numbers only), asked once per batch of drawn rows that show a mask's shape; the original
// from POST /api/session/reveal when "Show" is pressed (handlers/reveal.ts: launch token, same origin, no-store).
import { ApiError, errorText } from './api.js';
import { CODE_PAINTED } from './code-highlight.js';
import { copyButton } from './copy-button.js';
import { h } from './dom.js';
import type { MessageRow } from './message-rows.js';
import { mayHoldMask, placeMasks, type MaskPlace } from './reveal-places.js';

/** Rows one masks request names: the server's MAX_MASK_ROWS (handlers/reveal.ts). */
export const MASK_ROWS_PER_REQUEST = 64;
/** Answers kept (a row drawn again does not ask again); the oldest is dropped first. */
const KNOWN_MAX = 500;
const REVEAL_FAILED = 'Could not show the value';
/** Characters of each end of a row's text in its key: with its length, enough to tell an edited row. */
const KEY_ENDS = 64;

interface Pending {
  el: HTMLElement;
  text: string;
  sessionId: string;
  index: number;
}

async function post<T>(path: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'Satchel’s server is not reachable. Is it still running?');
  }
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, errorText(res.status, text));
  return JSON.parse(text) as T;
}

/** The drawn text nodes of a row's text, in order: not the words of its buttons, not a value already marked. */
function textNodes(root: HTMLElement): Text[] {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement?.closest('button, .masked-value') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const out: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) out.push(n as Text);
  return out;
}

/** One masked value: the mask, "Show"; once shown, the original, "Hide" and its own Copy. */
function maskedValue(mask: string, sessionId: string, index: number, start: number): HTMLElement {
  const value = h('span', { class: 'masked-text', 'data-testid': 'masked-text' }, mask);
  const status = h('span', { class: 'visually-hidden', role: 'status' });
  let copy: HTMLElement | null = null;
  const hide = () => {
    value.textContent = mask;
    wrap.classList.remove('revealed');
    toggle.textContent = 'Show';
    toggle.setAttribute('aria-label', 'Show the masked value');
    toggle.setAttribute('aria-pressed', 'false');
    copy?.remove();
    copy = null;
  };
  const show = async () => {
    toggle.disabled = true;
    try {
      const answer = await post<{ mask: string; original: string }>('/api/session/reveal', { session_id: sessionId, message_index: index, start });
      // The message changed since it was drawn: what the server found there is another value.
      if (answer.mask !== mask) throw new ApiError(409, 'the message changed; reload the conversation');
      const { original } = answer;
      value.textContent = original;
      wrap.classList.add('revealed');
      toggle.textContent = 'Hide';
      toggle.setAttribute('aria-label', 'Hide the value again');
      toggle.setAttribute('aria-pressed', 'true');
      copy = copyButton('Copy the value', 'copy-revealed', () => original);
      toggle.after(copy);
      status.textContent = '';
    } catch (err) {
      status.textContent = err instanceof ApiError ? `${REVEAL_FAILED}: ${err.message}` : REVEAL_FAILED;
      toggle.title = status.textContent;
    } finally {
      toggle.disabled = false;
    }
  };
  const toggle = h(
    'button',
    { class: 'reveal-btn', type: 'button', 'data-testid': 'reveal-masked', 'aria-label': 'Show the masked value', 'aria-pressed': 'false', title: 'Show what is masked here, in this view only' },
    'Show',
  );
  toggle.addEventListener('click', () => (wrap.classList.contains('revealed') ? hide() : void show()));
  const wrap = h('span', { class: 'masked-value', 'data-testid': 'masked-value', 'data-mask-start': start }, value, toggle, status);
  return wrap;
}

/** Marks the masked values of the thread's drawn rows with "Show". */
export class MaskedValues {
  /** A drawn row (keyOf) → the masks the server found there. */
  private readonly known = new Map<string, MaskPlace[]>();
  private pending: Pending[] = [];
  private scheduled = false;

  /** A stored row just drawn: its masks marked now if known, else after one request for the rows drawn with it. */
  decorate(el: HTMLElement, sessionId: string, r: MessageRow): void {
    if (!sessionId || r.failure || r.stoppedBy || r.arrival || !mayHoldMask(r.text)) return;
    const row: Pending = { el, text: r.text, sessionId, index: r.index };
    // Code coloured later replaces the block's nodes: its values are marked again on the new ones.
    el.addEventListener(CODE_PAINTED, () => this.mark(row));
    if (this.known.has(this.keyOf(row))) return this.mark(row);
    this.pending.push(row);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => void this.flush());
    }
  }

  /** The row and its text, by its length and ends (a whole reply as a key would keep megabytes alive). */
  private keyOf(r: Pending): string {
    return `${r.sessionId}|${r.index}|${r.text.length}|${r.text.slice(0, KEY_ENDS)}|${r.text.slice(-KEY_ENDS)}`;
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const rows = this.pending;
    this.pending = [];
    const bySession = new Map<string, Pending[]>();
    for (const r of rows) bySession.set(r.sessionId, [...(bySession.get(r.sessionId) ?? []), r]);
    for (const [sessionId, list] of bySession) {
      for (let i = 0; i < list.length; i += MASK_ROWS_PER_REQUEST) {
        const batch = list.slice(i, i + MASK_ROWS_PER_REQUEST);
        try {
          const answer = await post<{ messages: { message_index: number; masks: MaskPlace[] }[] }>('/api/session/masks', {
            session_id: sessionId,
            message_indexes: [...new Set(batch.map((r) => r.index))],
          });
          const found = new Map(answer.messages.map((m) => [m.message_index, m.masks]));
          for (const r of batch) this.remember(this.keyOf(r), found.get(r.index) ?? []);
        } catch (err) {
          // The masks stay as they are, without "Show": the conversation reads the same.
          console.warn('Masked values not marked:', err);
          continue;
        }
        for (const r of batch) this.mark(r);
      }
    }
  }

  private remember(key: string, masks: MaskPlace[]): void {
    this.known.delete(key);
    this.known.set(key, masks);
    if (this.known.size > KNOWN_MAX) this.known.delete(this.known.keys().next().value as string);
  }

  /** Mark (again) the row's masks on what is drawn now; a value shown goes back to its mask. */
  private mark(r: Pending): void {
    const masks = this.known.get(this.keyOf(r));
    const root = r.el.querySelector<HTMLElement>('.msg-text');
    if (!masks || masks.length === 0 || !root || !r.el.isConnected) return;
    for (const old of root.querySelectorAll('.masked-value')) old.replaceWith(old.querySelector('.masked-text')?.getAttribute('data-mask') ?? '');
    root.normalize();
    const nodes = textNodes(root);
    const places = placeMasks(r.text, masks, nodes.map((n) => n.data));
    // From the last to the first, so splitting a node leaves the offsets of the places before it valid.
    for (const p of places.reverse()) {
      const node = nodes[p.node]!;
      const rest = node.splitText(p.offset);
      rest.splitText(p.length);
      const mask = rest.data;
      const value = maskedValue(mask, r.sessionId, r.index, p.start);
      value.querySelector('.masked-text')!.setAttribute('data-mask', mask);
      rest.replaceWith(value);
    }
  }
}
