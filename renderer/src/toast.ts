// Short-lived notices in a polite live region, so screen readers announce them without stealing focus.
import { byId, h, icon, ICONS } from './dom.js';

const TOAST_MS = 6000;
const ERROR_TOAST_MS = 10000;

export function notify(text: string, kind: 'info' | 'error' = 'info'): void {
  const region = byId('toasts');
  const close = h('button', { class: 'icon-btn', type: 'button', 'aria-label': 'Dismiss' }, icon([...ICONS.x]));
  const toast = h('div', { class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : 'status', 'data-testid': 'toast' }, h('span', {}, text), close);
  const remove = () => toast.remove();
  close.addEventListener('click', remove);
  region.appendChild(toast);
  setTimeout(remove, kind === 'error' ? ERROR_TOAST_MS : TOAST_MS);
}

/**
 * A notice with one action (Undo), shown for `ms`; the action can be taken once and closes the notice. The
 * returned function closes it early. Polite status, so a screen reader announces it without moving focus.
 */
/** The action notices shown, the newest last: Ctrl/⌘+Z takes the newest one's action (shortcuts.ts `undo`). */
const shownActions: Array<() => void> = [];

/** Take the newest shown notice's action (its Undo), as its button would; false when none is shown. */
export function takeNewestAction(): boolean {
  const take = shownActions.at(-1);
  if (!take) return false;
  take();
  return true;
}

export function notifyAction(text: string, action: { label: string; testid: string; run: () => void }, ms: number): () => void {
  const region = byId('toasts');
  const button = h('button', { class: 'btn btn-small toast-action', type: 'button', 'data-testid': action.testid }, action.label);
  const close = h('button', { class: 'icon-btn', type: 'button', 'aria-label': 'Dismiss' }, icon([...ICONS.x]));
  const toast = h('div', { class: 'toast toast-info', role: 'status', 'data-testid': 'toast' }, h('span', {}, text), button, close);
  const remove = () => {
    clearTimeout(timer);
    toast.remove();
    const at = shownActions.indexOf(take);
    if (at >= 0) shownActions.splice(at, 1);
  };
  const take = () => {
    remove();
    action.run();
  };
  button.addEventListener('click', take);
  shownActions.push(take);
  close.addEventListener('click', remove);
  region.appendChild(toast);
  const timer = setTimeout(remove, ms);
  return remove;
}
