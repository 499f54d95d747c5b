// Export and import of conversations (docs/API.md "Export and import"): the conversation header's Export menu
// (Markdown or JSON, plain download links the server answers with a file), "Export all" and "Import…" in the
// sidebar. An import that the server refuses shows its one sentence under the button; one that succeeds opens
// the new conversation. Links, not scripts, download: the page's policy needs nothing more.
import { errorText, type Session } from './api.js';
import { byId } from './dom.js';

/** How long "Imported 23 conversations." stays under the button: long enough to read, then the footer is clear. */
export const IMPORT_STATUS_MS = 8_000;

export interface ExportImportDeps {
  /** The server made conversation `id` from an export: show it. */
  imported(id: string): void;
}

/** GET /api/session/export for `id` in `format`. */
export function exportHref(id: string, format: 'md' | 'json'): string {
  return `/api/session/export?${new URLSearchParams({ session_id: id, format }).toString()}`;
}

export class ExportImport {
  private readonly menu = byId<HTMLDetailsElement>('export-menu');
  private readonly markdown = byId<HTMLAnchorElement>('export-md');
  private readonly json = byId<HTMLAnchorElement>('export-json');
  private readonly importButton = byId<HTMLButtonElement>('import-session');
  private readonly input = byId<HTMLInputElement>('import-input');
  private readonly error = byId('import-error');
  private readonly status = byId('import-status');
  private statusTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly deps: ExportImportDeps) {
    // A choice made closes the menu, as any menu does; Escape and a click elsewhere too.
    for (const link of [this.markdown, this.json]) link.addEventListener('click', () => (this.menu.open = false));
    this.menu.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.menu.open = false;
    });
    document.addEventListener('click', (e) => {
      if (this.menu.open && !this.menu.contains(e.target as Node)) this.menu.open = false;
    });
    this.importButton.addEventListener('click', () => this.input.click());
    this.input.addEventListener('change', () => {
      const file = this.input.files?.[0];
      this.input.value = '';
      if (file) void this.importFile(file);
    });
  }

  update(session: Session | null): void {
    this.menu.hidden = !session;
    if (!session) {
      this.menu.open = false;
      return;
    }
    this.markdown.href = exportHref(session.session_id, 'md');
    this.json.href = exportHref(session.session_id, 'json');
  }

  private async importFile(file: File): Promise<void> {
    this.error.hidden = true;
    clearTimeout(this.statusTimer);
    this.status.textContent = `Importing ${file.name}…`;
    this.importButton.disabled = true;
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      let res: Response;
      try {
        res = await fetch('/api/session/import', { method: 'POST', body: form, credentials: 'same-origin' });
      } catch {
        throw new Error(errorText(0, ''));
      }
      const text = await res.text();
      if (!res.ok) throw new Error(errorText(res.status, text));
      const { session, sessions, missing_connections: missing } = JSON.parse(text) as { session: Session; sessions?: Array<{ session_id: string }>; missing_connections?: string[] };
      // An "Export all" archive brings back every conversation in it; the first of them is opened.
      this.status.textContent = (sessions && sessions.length > 1 ? `Imported ${sessions.length} conversations.` : `Imported “${session.title}”.`) + missingConnectionsText(missing);
      this.statusTimer = setTimeout(() => (this.status.textContent = ''), IMPORT_STATUS_MS);
      this.deps.imported(session.session_id);
    } catch (err) {
      this.status.textContent = '';
      this.error.textContent = err instanceof Error ? err.message : String(err);
      this.error.hidden = false;
    } finally {
      this.importButton.disabled = false;
    }
  }
}

/** What an import says of the agent connections its export named that this Satchel does not have (issue 38, item 5). */
export function missingConnectionsText(missing: readonly string[] | undefined): string {
  if (!missing || missing.length === 0) return '';
  const names = missing.map((n) => `“${n}”`).join(', ');
  return missing.length === 1
    ? ` No agent connection named ${names} here: its conversations use the default agent.`
    : ` No agent connections named ${names} here: their conversations use the default agent.`;
}
