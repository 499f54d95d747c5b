// A page that had access can lose it: the server's token is new on every launch, so after a restart of the
// headless server (which comes back on the same port) every request from an open tab is refused with 401.
// Instead of failing silently, the page then says what to do. The desktop window never gets here: its app
// restarts with the server and loads the new token itself. A 401 before any answer succeeded is the other
// case, a page opened without its token link, which the app's start already handles (#auth-required).
import { h } from './dom.js';

export const RESTARTED_TITLE = 'Satchel restarted';
export const RESTARTED_TEXT = 'Satchel restarted: open the new link printed in the terminal.';
/** The status the server refuses a missing or stale token with (403 also means a refused path, so not it). */
export const ACCESS_REFUSED_STATUS = 401;
/** Any authenticated endpoint will do for a check; this one is small and has no side effects. */
export const ACCESS_CHECK_PATH = '/api/config';

/** What the answers so far say about this page's access. */
export class AccessWatch {
  private hadAccess = false;
  private lost = false;

  /** Record an answer's status; true exactly once, for the refusal that shows a held access was lost. */
  seen(status: number): boolean {
    if (status >= 200 && status < 300) {
      this.hadAccess = true;
      return false;
    }
    if (status !== ACCESS_REFUSED_STATUS || !this.hadAccess || this.lost) return false;
    this.lost = true;
    return true;
  }
}

const watch = new AccessWatch();

/** Told every API answer's status (api.ts); shows the notice when a held access turns out lost. */
export function noteStatus(status: number): void {
  if (watch.seen(status)) showRestarted();
}

/** Ask the server whether this page still has access: the live-updates stream cannot say (EventSource hides
 * the status of a refused connection), so it calls this when it loses the connection. */
export function checkAccess(): void {
  fetch(ACCESS_CHECK_PATH, { credentials: 'same-origin', headers: { Accept: 'application/json' } }).then(
    (res) => noteStatus(res.status),
    () => undefined, // unreachable: the server is down or restarting; the next reconnect checks again
  );
}

function showRestarted(): void {
  document.getElementById('app')?.setAttribute('hidden', '');
  const notice = h(
    'div',
    { class: 'fullscreen-notice', 'data-testid': 'access-restarted' },
    h(
      'div',
      { class: 'notice-card', role: 'alert' },
      h('img', { src: 'icon.svg', alt: '', width: '48', height: '48' }),
      h('h1', {}, RESTARTED_TITLE),
      h('p', {}, RESTARTED_TEXT),
    ),
  );
  document.body.appendChild(notice);
}
