// The conversation header: the session's title (with renaming in place), its workspace line and the window
// title. The one owner of those elements: App hands it the session through update(), nothing else writes them.
import { api, type Session } from './api.js';
import { byId, icon, ICONS } from './dom.js';
import { notify } from './toast.js';

export interface HeaderDeps {
  /** The server confirmed a new title for session `id`. */
  renamed(id: string, title: string): void;
}

export class SessionHeader {
  private readonly title = byId('session-title');
  private readonly renameButton = byId<HTMLButtonElement>('rename-session');
  private readonly workspace = byId('session-workspace');
  private readonly form = byId<HTMLFormElement>('rename-form');
  private readonly input = byId<HTMLInputElement>('rename-input');
  private session: Session | null = null;

  constructor(private readonly deps: HeaderDeps) {
    this.renameButton.appendChild(icon([...ICONS.edit]));
    this.renameButton.title = 'Rename session';
    this.renameButton.addEventListener('click', () => this.startRename());
    this.title.addEventListener('dblclick', () => this.startRename());
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.finishRename(true);
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        void this.finishRename(false);
      }
    });
    this.input.addEventListener('blur', () => void this.finishRename(true));
  }

  update(session: Session | null): void {
    this.session = session;
    const title = session ? session.title || 'Untitled' : 'No session';
    this.title.textContent = title;
    // The header wraps a long title in full; the attribute also shows it on hover.
    this.title.title = title;
    this.renameButton.hidden = !session || !this.form.hidden;
    this.workspace.textContent = session?.workspace ? `Workspace: ${session.workspace}` : '';
    this.workspace.title = this.workspace.textContent;
    document.title = session ? `${title} — Satchel` : 'Satchel';
  }

  private startRename(): void {
    if (!this.session) return;
    this.input.value = this.title.textContent ?? '';
    this.title.hidden = true;
    this.renameButton.hidden = true;
    this.form.hidden = false;
    this.input.focus();
    this.input.select();
  }

  private async finishRename(save: boolean): Promise<void> {
    if (this.form.hidden) return;
    this.form.hidden = true;
    this.title.hidden = false;
    this.renameButton.hidden = !this.session;
    const id = this.session?.session_id;
    const title = this.input.value.trim();
    if (!save || !id || !title) return;
    try {
      const { session } = await api.rename(id, title);
      this.deps.renamed(id, session.title);
    } catch (err) {
      notify(err instanceof Error ? err.message : String(err), 'error');
    }
  }
}
