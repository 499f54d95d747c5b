// What the page's address and its remembered last conversation say: `#s=<id>` names the conversation on screen,
// `&m=<index>` a message to bring into view, `#settings` asks for the Settings dialog. Apart from app.ts so the
// parsing is a pure function tested in node (address.test.ts), and app.ts only acts on what it returns.

/** The address fragment that opens the Settings dialog (main/tray-menu.ts settingsUrl builds the same). */
export const SETTINGS_HASH = '#settings';
const LAST_SESSION_KEY = 'satchel.lastSession';
/** `#s=<id>`, optionally `&m=<index in its messages>`; an index has at most six digits. */
const SESSION_HASH = /^#s=([\w-]+)(?:&m=(\d{1,6}))?$/;

/** A conversation the address names, and the message in it to reveal when it names one. */
export interface AddressedSession {
  id: string;
  message?: number;
}

/** The conversation (and message) `hash` names; null when it names none. */
export function sessionInAddress(hash: string): AddressedSession | null {
  const m = SESSION_HASH.exec(hash);
  if (!m?.[1]) return null;
  return m[2] === undefined ? { id: m[1] } : { id: m[1], message: Number(m[2]) };
}

/** The address of conversation `id`. */
export function sessionHash(id: string): string {
  return `#s=${id}`;
}

/** The conversation shown last in this browser, when it may remember one. */
export function rememberedSession(): string | null {
  try {
    return localStorage.getItem(LAST_SESSION_KEY);
  } catch {
    return null;
  }
}

export function rememberSession(id: string): void {
  try {
    localStorage.setItem(LAST_SESSION_KEY, id);
  } catch {
    // not remembered across launches; harmless
  }
}
