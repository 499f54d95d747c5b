// Light/dark theme: follows prefers-color-scheme unless the user picks one; the choice is remembered.
import { byId, clear, icon, ICONS } from './dom.js';

type Mode = 'system' | 'light' | 'dark';
const KEY = 'satchel.theme';
const ORDER: Mode[] = ['system', 'light', 'dark'];
const LABEL: Record<Mode, string> = { system: 'Theme: follow system', light: 'Theme: light', dark: 'Theme: dark' };

function stored(): Mode {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

function apply(mode: Mode, button: HTMLButtonElement): void {
  if (mode === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = mode;
  clear(button);
  button.appendChild(icon([...(mode === 'light' ? ICONS.sun : mode === 'dark' ? ICONS.moon : ICONS.monitor)]));
  button.setAttribute('aria-label', LABEL[mode]);
  button.title = `${LABEL[mode]} (click to change)`;
  button.dataset.mode = mode;
}

export function initTheme(): void {
  const button = byId<HTMLButtonElement>('theme-toggle');
  let mode = stored();
  apply(mode, button);
  button.addEventListener('click', () => {
    mode = ORDER[(ORDER.indexOf(mode) + 1) % ORDER.length] ?? 'system';
    try {
      if (mode === 'system') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, mode);
    } catch {
      // storage can be unavailable (private mode); the choice then lasts for this window only
    }
    apply(mode, button);
  });
}
