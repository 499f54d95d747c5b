// The settings page's view of the desktop settings (desktop-settings.json): read them with the sentences of
// any shortcut that does not work (taken by another application, a conflict, a typo), and change them. Only
// the app's own top-level page may ask; a change is checked field by field before anything is saved.
import { loginItemSupported } from './app-menu.js';
import { isOpenWithDestination, isPushToTalkDestination, OPEN_WITH_DESTINATIONS, PUSH_TO_TALK_DESTINATIONS, type DesktopSettings } from './gui-config.js';
import { isTrustedSender, type InvokeEvent } from './pick-folder.js';
import { DEFAULT_SHORTCUTS, MAX_ACCELERATOR_CHARS, SHORTCUT_ACTIONS, shortcutProblems, type ShortcutStatus } from './shortcuts.js';

export const DESKTOP_SETTINGS_CHANNEL = 'satchel:desktop-settings';

export interface DesktopSettingsView {
  settings: DesktopSettings;
  defaults: typeof DEFAULT_SHORTCUTS;
  /** One sentence per shortcut that does not work; the settings page shows them beside the fields. */
  problems: string[];
  openAtLoginSupported: boolean;
}

export interface DesktopSettingsDeps {
  appOrigin: string;
  platform: NodeJS.Platform;
  current(): DesktopSettings;
  statuses(): readonly ShortcutStatus[];
  update(change: Partial<DesktopSettings>): Promise<void>;
}

/** A change as the page sent it → the fields to apply, or the sentence saying what is wrong with it. */
export function parseSettingsChange(value: unknown, current: DesktopSettings): { change: Partial<DesktopSettings> } | { error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'Settings must be an object' };
  const change: Partial<DesktopSettings> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === 'closeToTray' || key === 'openAtLogin') {
      if (typeof field !== 'boolean') return { error: `${key} must be true or false` };
      change[key] = field;
    } else if (key === 'pushToTalkTo') {
      if (!isPushToTalkDestination(field)) return { error: `pushToTalkTo must be one of ${PUSH_TO_TALK_DESTINATIONS.join(', ')}` };
      change.pushToTalkTo = field;
    } else if (key === 'openWithTo') {
      if (!isOpenWithDestination(field)) return { error: `openWithTo must be one of ${OPEN_WITH_DESTINATIONS.join(', ')}` };
      change.openWithTo = field;
    } else if (key === 'shortcuts') {
      if (typeof field !== 'object' || field === null) return { error: 'shortcuts must be an object' };
      const shortcuts = { ...current.shortcuts };
      for (const [action, accelerator] of Object.entries(field)) {
        if (!(SHORTCUT_ACTIONS as readonly string[]).includes(action)) return { error: `Unknown shortcut: ${action.slice(0, 40)}` };
        if (typeof accelerator !== 'string' || accelerator.length > MAX_ACCELERATOR_CHARS) {
          return { error: `The ${action} shortcut must be text of at most ${MAX_ACCELERATOR_CHARS} characters` };
        }
        shortcuts[action as keyof typeof shortcuts] = accelerator;
      }
      change.shortcuts = shortcuts;
    } else {
      return { error: `Unknown setting: ${key.slice(0, 40)}` };
    }
  }
  return { change };
}

export function createDesktopSettingsHandler(deps: DesktopSettingsDeps) {
  const view = (): DesktopSettingsView => ({
    settings: structuredClone(deps.current()),
    defaults: { ...DEFAULT_SHORTCUTS },
    problems: shortcutProblems(deps.statuses()),
    openAtLoginSupported: loginItemSupported(deps.platform),
  });
  return async (event: InvokeEvent, ...args: unknown[]): Promise<DesktopSettingsView | { error: string }> => {
    if (!isTrustedSender(event.senderFrame, deps.appOrigin)) throw new Error('desktopSettings: untrusted sender');
    if (args.length === 0) return view();
    if (args.length !== 1) return { error: 'Send one settings object' };
    const parsed = parseSettingsChange(args[0], deps.current());
    if ('error' in parsed) return parsed;
    await deps.update(parsed.change);
    return view();
  };
}
