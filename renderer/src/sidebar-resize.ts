// The conversation list's width (issue 38, item 1): a handle on the sidebar's edge, dragged or moved with the
// arrow keys (a focusable separator, as ARIA's window splitter), the width kept in this browser's localStorage.
// Until the person picks one the stylesheet's default holds, which widens with the window (styles.css
// --sidebar-width). The width is a CSS variable on the app, so the grid and the small window's drawer both read it.
import { byId, h } from './dom.js';

export const SIDEBAR_WIDTH_KEY = 'satchel.sidebarWidth';
/** Narrower and a title's first words no longer fit beside the time. */
export const MIN_SIDEBAR_PX = 200;
/** Wider buys nothing a title needs and starves the conversation. */
export const MAX_SIDEBAR_PX = 560;
/** And never more than this share of the window, so the conversation keeps the rest. */
const MAX_SIDEBAR_SHARE = 0.45;
/** One arrow key press; Page Up/Down move four of these. */
export const SIDEBAR_STEP_PX = 16;
const SIDEBAR_PAGE_STEPS = 4;

/** `px` held within the limits for a window `viewport` px wide. */
export function clampWidth(px: number, viewport: number): number {
  const max = Math.max(MIN_SIDEBAR_PX, Math.min(MAX_SIDEBAR_PX, Math.floor(viewport * MAX_SIDEBAR_SHARE)));
  return Math.round(Math.min(max, Math.max(MIN_SIDEBAR_PX, px)));
}

/** The width kept from an earlier visit, or null (the stylesheet's default). */
export function storedWidth(): number | null {
  try {
    const n = Number(localStorage.getItem(SIDEBAR_WIDTH_KEY));
    return Number.isFinite(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

function store(px: number | null): void {
  try {
    if (px === null) localStorage.removeItem(SIDEBAR_WIDTH_KEY);
    else localStorage.setItem(SIDEBAR_WIDTH_KEY, String(px));
  } catch {
    // Storage refused (a private window): the width holds for this visit.
  }
}

export function initSidebarResize(): void {
  const app = byId('app');
  const sidebar = byId('sidebar');
  const handle = h('div', {
    class: 'sidebar-resize',
    role: 'separator',
    tabindex: '0',
    'aria-orientation': 'vertical',
    'aria-controls': 'sidebar',
    'aria-label': 'Width of the conversation list',
    title: 'Drag, or use ← and →, to resize the list (double-click: default width)',
    'data-testid': 'sidebar-resize',
  });
  sidebar.append(handle);

  let chosen = storedWidth();
  const current = () => Math.round(sidebar.getBoundingClientRect().width);
  const apply = () => {
    if (chosen === null) app.style.removeProperty('--sidebar-width');
    else app.style.setProperty('--sidebar-width', `${clampWidth(chosen, window.innerWidth)}px`);
    const now = current() || clampWidth(chosen ?? MIN_SIDEBAR_PX, window.innerWidth);
    handle.setAttribute('aria-valuenow', String(now));
    handle.setAttribute('aria-valuemin', String(MIN_SIDEBAR_PX));
    handle.setAttribute('aria-valuemax', String(clampWidth(MAX_SIDEBAR_PX, window.innerWidth)));
  };
  const set = (px: number | null) => {
    chosen = px === null ? null : clampWidth(px, window.innerWidth);
    store(chosen);
    apply();
  };

  handle.addEventListener('keydown', (e) => {
    const step = e.key === 'PageUp' || e.key === 'PageDown' ? SIDEBAR_STEP_PX * SIDEBAR_PAGE_STEPS : SIDEBAR_STEP_PX;
    const moves: Record<string, () => number> = {
      ArrowRight: () => current() + step,
      ArrowLeft: () => current() - step,
      PageUp: () => current() + step,
      PageDown: () => current() - step,
      Home: () => MIN_SIDEBAR_PX,
      End: () => MAX_SIDEBAR_PX,
    };
    const move = moves[e.key];
    if (move) {
      e.preventDefault();
      set(move());
    } else if (e.key === 'Enter') {
      e.preventDefault();
      set(null);
    }
  });
  handle.addEventListener('dblclick', () => set(null));
  handle.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    e.preventDefault();
    handle.setPointerCapture(e.pointerId);
    const left = sidebar.getBoundingClientRect().left;
    const onMove = (m: PointerEvent) => {
      chosen = clampWidth(m.clientX - left, window.innerWidth);
      apply();
    };
    const onUp = () => {
      handle.removeEventListener('pointermove', onMove);
      handle.removeEventListener('pointerup', onUp);
      handle.removeEventListener('pointercancel', onUp);
      if (chosen !== null) store(chosen);
    };
    handle.addEventListener('pointermove', onMove);
    handle.addEventListener('pointerup', onUp);
    handle.addEventListener('pointercancel', onUp);
  });
  // A smaller window holds the width within its share again (kept as chosen, for when it widens).
  window.addEventListener('resize', apply);
  apply();
}
