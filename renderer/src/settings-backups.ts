// The conversation database in the page (issue 33, finding 10): a banner with the server's one sentence when
// the database is damaged (what happened and what to do), and Settings → Backups, the checked backups with
// "Restore" on each. A restore puts the backup in place on the server at once; the page then loads afresh.
// Built here rather than in index.html: both are small and appear only around this one route.
import { api, ApiError, type DatabaseBackup, type DatabaseStateResponse } from './api.js';
import { clear, h } from './dom.js';

export const BACKUPS_HEADING = 'Backups';
export const NO_BACKUPS = 'No backup yet: Satchel makes one a day and before every upgrade of its database.';

/** "28 Nov 2026, 18:51 · daily · 1.2 MB": one line per backup. */
export function backupLine(b: DatabaseBackup): string {
  const when = new Date(b.created_at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const why = b.reason === 'daily' ? 'daily' : 'before an upgrade';
  const size = b.size >= 1024 * 1024 ? `${(b.size / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(b.size / 1024))} KB`;
  return `${when} · ${why} · ${size}`;
}

function message(err: unknown): string {
  return err instanceof ApiError || err instanceof Error ? err.message : String(err);
}

export class BackupsSection {
  readonly element: HTMLElement;
  private readonly state = h('p', { class: 'small', 'data-testid': 'database-state', role: 'status' });
  private readonly list = h('ul', { class: 'inbox-folder-list', 'data-testid': 'backup-list', 'aria-label': 'Backups' });
  private readonly error = h('p', { class: 'error-text small', 'data-testid': 'backup-error', role: 'alert', hidden: '' });
  private busy = false;

  constructor() {
    this.element = h(
      'section',
      { class: 'settings-section', 'data-testid': 'backup-settings', 'aria-labelledby': 'backup-settings-heading' },
      h('h3', { id: 'backup-settings-heading' }, BACKUPS_HEADING),
      this.state,
      this.list,
      this.error,
    );
  }

  async load(): Promise<void> {
    try {
      this.show(await api.database());
    } catch (err) {
      this.fail(message(err));
    }
  }

  private show(db: DatabaseStateResponse): void {
    this.error.hidden = true;
    this.state.textContent = db.state === 'damaged' ? (db.message ?? '') : `The conversations are kept in ${db.file}; the newest ${db.backups.length > 0 ? 'backups are' : 'backup will be'} listed here.`;
    this.state.classList.toggle('error-text', db.state === 'damaged');
    clear(this.list);
    if (db.backups.length === 0) this.list.appendChild(h('li', { class: 'muted small', 'data-testid': 'no-backups' }, NO_BACKUPS));
    for (const b of db.backups) {
      const button = h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'restore-backup' }, 'Restore');
      button.addEventListener('click', () => void this.restore(b, button));
      this.list.appendChild(h('li', { class: 'inbox-folder', 'data-testid': 'backup-row' }, h('span', { class: 'small' }, backupLine(b)), button));
    }
  }

  private async restore(b: DatabaseBackup, button: HTMLButtonElement): Promise<void> {
    if (this.busy) return;
    const sure = window.confirm(`Restore the backup of ${backupLine(b)}? The conversations will be as they were then; the current database file is kept aside, not deleted.`);
    if (!sure) return;
    this.busy = true;
    button.disabled = true;
    try {
      await api.restoreDatabase(b.name);
      // Every list and conversation on the page is of the database replaced: start afresh from the restored one.
      window.location.reload();
    } catch (err) {
      this.fail(message(err));
      button.disabled = false;
    } finally {
      this.busy = false;
    }
  }

  private fail(text: string): void {
    this.error.textContent = text;
    this.error.hidden = false;
  }
}

/** At start: the banner over the page when the database is damaged, its button opening Settings → Backups. */
export async function showDatabaseBanner(openSettings: () => void): Promise<void> {
  let db: DatabaseStateResponse;
  try {
    db = await api.database();
  } catch {
    return; // The page's other requests say what is wrong with the server.
  }
  if (db.state !== 'damaged' || !db.message) return;
  const button = h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'database-banner-restore' }, 'Restore from backup…');
  button.addEventListener('click', openSettings);
  const banner = h('div', { class: 'database-banner', role: 'alert', 'data-testid': 'database-banner' }, h('span', {}, db.message), button);
  document.body.prepend(banner);
}
