// Small windows: below NARROW_MAX_WIDTH_PX the three columns become one, and the sessions list and the
// workspace panel open as drawers over the conversation (a toggle in the header each). An open drawer keeps
// focus inside itself (Tab wraps), and Escape, the backdrop or the toggle close it, giving focus back to the
// toggle. In a wide window the panels are columns and the toggles are not shown.
import { byId, icon, ICONS } from './dom.js';

/** Must match the `max-width` of the narrow layout's media query in styles.css. */
export const NARROW_MAX_WIDTH_PX = 899;

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"]), summary';

class Drawer {
  constructor(
    readonly panel: HTMLElement,
    readonly toggle: HTMLButtonElement,
    private readonly onChange: (drawer: Drawer, open: boolean) => void,
  ) {
    toggle.setAttribute('aria-controls', panel.id);
    toggle.setAttribute('aria-expanded', 'false');
    toggle.addEventListener('click', () => (this.isOpen ? this.close() : this.open()));
    panel.addEventListener('keydown', (e) => this.onKey(e));
  }

  get isOpen(): boolean {
    return this.panel.classList.contains('drawer-open');
  }

  open(): void {
    this.panel.classList.add('drawer-open');
    this.toggle.setAttribute('aria-expanded', 'true');
    this.onChange(this, true);
    this.focusables()[0]?.focus();
  }

  close(returnFocus = true): void {
    if (!this.isOpen) return;
    this.panel.classList.remove('drawer-open');
    this.toggle.setAttribute('aria-expanded', 'false');
    this.onChange(this, false);
    if (returnFocus) this.toggle.focus();
  }

  private focusables(): HTMLElement[] {
    return Array.from(this.panel.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.getClientRects().length > 0);
  }

  private onKey(e: KeyboardEvent): void {
    if (!this.isOpen || !narrow()) return;
    if (e.key === 'Escape' && !e.defaultPrevented) {
      e.preventDefault();
      this.close();
      return;
    }
    if (e.key !== 'Tab') return;
    const all = this.focusables();
    const first = all[0];
    const last = all[all.length - 1];
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  }
}

function narrow(): boolean {
  return window.matchMedia(`(max-width: ${NARROW_MAX_WIDTH_PX}px)`).matches;
}

/**
 * Wire the two drawers; returns a function that closes whichever is open (e.g. after picking a session), and one
 * that shows the sessions list (a drawer in a small window; a column, always shown, otherwise).
 */
export function initDrawers(): { closeAll(): void; showSessions(): void } {
  const app = byId('app');
  const backdrop = byId('drawer-backdrop');
  const sessionsToggle = byId<HTMLButtonElement>('sessions-toggle');
  const workspaceToggle = byId<HTMLButtonElement>('workspace-toggle');
  sessionsToggle.appendChild(icon(['M3 6h18', 'M3 12h18', 'M3 18h18']));
  workspaceToggle.appendChild(icon([...ICONS.folder]));
  const drawers: Drawer[] = [];
  const changed = (which: Drawer, open: boolean): void => {
    // One drawer at a time: opening one closes the other without moving focus back to its toggle.
    if (open) for (const d of drawers) if (d !== which) d.close(false);
    const any = drawers.some((d) => d.isOpen);
    backdrop.hidden = !any;
    app.classList.toggle('drawer-shown', any);
  };
  drawers.push(new Drawer(byId('sidebar'), sessionsToggle, changed), new Drawer(byId('workspace-panel'), workspaceToggle, changed));
  backdrop.addEventListener('click', () => drawers.find((d) => d.isOpen)?.close());
  // Widening the window turns the drawers back into columns: nothing stays "open" over the conversation.
  window.matchMedia(`(max-width: ${NARROW_MAX_WIDTH_PX}px)`).addEventListener('change', (e) => {
    if (!e.matches) for (const d of drawers) d.close(false);
  });
  return {
    closeAll: () => {
      for (const d of drawers) if (d.isOpen) d.close(false);
    },
    showSessions: () => {
      if (narrow() && !drawers[0]!.isOpen) drawers[0]!.open();
    },
  };
}
