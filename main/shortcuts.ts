// Global shortcuts: Electron accelerators parsed and checked here (its grammar, docs/api/accelerator.md), the
// defaults, conflicts between Satchel's own, and registration whose every refusal becomes a sentence the
// settings show, so a shortcut another application holds is never silently lost.
import type { GlobalShortcut } from 'electron';

export type ShortcutAction = 'quickCapture' | 'pushToTalk';
export const SHORTCUT_ACTIONS: readonly ShortcutAction[] = ['quickCapture', 'pushToTalk'];
export const SHORTCUT_LABELS: Record<ShortcutAction, string> = {
  quickCapture: 'Quick capture',
  pushToTalk: 'Push-to-talk',
};
/** Chosen to collide with no common application's own shortcut (Space alone is Spotlight's, Shift+D nobody's). */
export const DEFAULT_SHORTCUTS: Record<ShortcutAction, string> = {
  quickCapture: 'CommandOrControl+Shift+Space',
  pushToTalk: 'CommandOrControl+Shift+D',
};
/** Longer than any real accelerator ("CommandOrControl+Alt+Shift+Super+MediaPreviousTrack" is 54). */
export const MAX_ACCELERATOR_CHARS = 100;

type Modifier = 'Command' | 'Control' | 'Alt' | 'AltGr' | 'Shift' | 'Super';
/** Every spelling Electron accepts, to the modifier it means; CommandOrControl is resolved per platform. */
const MODIFIERS: Record<string, Modifier | 'CommandOrControl'> = {
  command: 'Command',
  cmd: 'Command',
  control: 'Control',
  ctrl: 'Control',
  commandorcontrol: 'CommandOrControl',
  cmdorctrl: 'CommandOrControl',
  alt: 'Alt',
  option: 'Alt',
  altgr: 'AltGr',
  shift: 'Shift',
  super: 'Super',
  meta: 'Super',
};
/** The order modifiers are written in a canonical accelerator. */
const MODIFIER_ORDER: readonly Modifier[] = ['Command', 'Control', 'Alt', 'AltGr', 'Shift', 'Super'];

const NAMED_KEYS = [
  'Plus', 'Space', 'Tab', 'Capslock', 'Numlock', 'Scrolllock', 'Backspace', 'Delete', 'Insert', 'Enter', 'Up', 'Down',
  'Left', 'Right', 'Home', 'End', 'PageUp', 'PageDown', 'Escape', 'VolumeUp', 'VolumeDown', 'VolumeMute',
  'MediaNextTrack', 'MediaPreviousTrack', 'MediaStop', 'MediaPlayPause', 'PrintScreen',
  'num0', 'num1', 'num2', 'num3', 'num4', 'num5', 'num6', 'num7', 'num8', 'num9', 'numdec', 'numadd', 'numsub',
  'nummult', 'numdiv',
];
/** Lower-case spelling to the canonical key name; aliases as Electron has them. */
const KEYS = new Map<string, string>([
  ...NAMED_KEYS.map((k) => [k.toLowerCase(), k] as [string, string]),
  ['return', 'Enter'],
  ['esc', 'Escape'],
]);
for (let i = 1; i <= 24; i++) KEYS.set(`f${i}`, `F${i}`);
/** Single characters Electron accepts as keys (letters are upper-cased; '+' must be written Plus). */
const SINGLE_KEYS = /^[A-Za-z0-9)!@#$%^&*(:;=<,_\->.?/~`{}[\]|\\'"]$/;
/** Keys a global shortcut may use without a modifier: no one types them into a document. */
const BARE_ALLOWED = /^(F\d{1,2}|Media\w+|Volume\w+|PrintScreen)$/;

export type ParsedAccelerator =
  | { ok: true; canonical: string; modifiers: Modifier[]; key: string }
  | { ok: false; error: string };

/**
 * Parse an accelerator as Electron would, stricter where a global shortcut must be: exactly one key, each
 * modifier once, and a modifier unless the key is one nobody types (F-keys, media keys). `canonical` is the
 * same shortcut spelt one way on this platform, so two spellings of one shortcut compare equal.
 */
export function parseAccelerator(text: unknown, platform: NodeJS.Platform): ParsedAccelerator {
  if (typeof text !== 'string' || text.trim() === '') return { ok: false, error: 'The shortcut is empty' };
  if (text.length > MAX_ACCELERATOR_CHARS) return { ok: false, error: `The shortcut is too long (max ${MAX_ACCELERATOR_CHARS} characters)` };
  const parts = text.split('+').map((p) => p.trim());
  if (parts.some((p) => p === '')) return { ok: false, error: `"${text}" is not a shortcut: write the + key as Plus (Control+Plus)` };
  const modifiers = new Set<Modifier>();
  let key: string | undefined;
  for (const part of parts) {
    const lower = part.toLowerCase();
    const modifier = MODIFIERS[lower];
    if (modifier) {
      if (key !== undefined) return { ok: false, error: `"${text}" is not a shortcut: modifiers come before the key` };
      // On macOS Super (Meta) is the Command key: one modifier, however it is spelt.
      const resolved: Modifier =
        modifier === 'CommandOrControl' ? (platform === 'darwin' ? 'Command' : 'Control') : modifier === 'Super' && platform === 'darwin' ? 'Command' : modifier;
      if (resolved === 'Command' && platform !== 'darwin') {
        return { ok: false, error: `"${text}" uses Command, which exists only on macOS: write CommandOrControl` };
      }
      if (modifiers.has(resolved)) return { ok: false, error: `"${text}" names ${resolved} twice` };
      modifiers.add(resolved);
      continue;
    }
    const named = KEYS.get(lower) ?? (SINGLE_KEYS.test(part) ? part.toUpperCase() : undefined);
    if (named === undefined) return { ok: false, error: `"${part}" is not a key Electron knows` };
    if (key !== undefined) return { ok: false, error: `"${text}" names two keys (${key} and ${named}); a shortcut has one` };
    key = named;
  }
  if (key === undefined) return { ok: false, error: `"${text}" has no key, only modifiers` };
  if (modifiers.size === 0 && !BARE_ALLOWED.test(key)) {
    return { ok: false, error: `"${text}" needs a modifier (Control, Alt, Shift…): alone it would take the key from every application` };
  }
  const ordered = MODIFIER_ORDER.filter((m) => modifiers.has(m));
  return { ok: true, canonical: [...ordered, key].join('+'), modifiers: ordered, key };
}

/** The shortcuts setting: an accelerator per action, '' when the person turned that one off. */
export type ShortcutSettings = Record<ShortcutAction, string>;

export type ShortcutStatus =
  | { action: ShortcutAction; accelerator: string; state: 'active' }
  | { action: ShortcutAction; accelerator: string; state: 'off' }
  | { action: ShortcutAction; accelerator: string; state: 'invalid' | 'conflict' | 'taken'; message: string };

/** Each action's accelerator, checked, and checked against the others: what registration may try. */
export function planShortcuts(settings: ShortcutSettings, platform: NodeJS.Platform): Array<ShortcutStatus & { canonical?: string }> {
  const seen = new Map<string, ShortcutAction>();
  return SHORTCUT_ACTIONS.map((action) => {
    const accelerator = settings[action] ?? '';
    if (accelerator === '') return { action, accelerator, state: 'off' as const };
    const parsed = parseAccelerator(accelerator, platform);
    if (!parsed.ok) return { action, accelerator, state: 'invalid' as const, message: `${SHORTCUT_LABELS[action]}: ${parsed.error}` };
    const earlier = seen.get(parsed.canonical);
    if (earlier) {
      return {
        action,
        accelerator,
        state: 'conflict' as const,
        message: `${SHORTCUT_LABELS[action]}: ${accelerator} is already ${SHORTCUT_LABELS[earlier]}'s shortcut`,
      };
    }
    seen.set(parsed.canonical, action);
    return { action, accelerator, state: 'active' as const, canonical: parsed.canonical };
  });
}

export type ShortcutRegistry = Pick<GlobalShortcut, 'register' | 'unregister'>;

/**
 * Register the planned shortcuts (first unregistering what an earlier call registered). globalShortcut.register
 * answers false when another application holds the combination: that is reported as `taken`, with a sentence.
 */
export function registerShortcuts(
  registry: ShortcutRegistry,
  settings: ShortcutSettings,
  platform: NodeJS.Platform,
  handlers: Record<ShortcutAction, () => void>,
  previous: readonly ShortcutStatus[] = [],
): ShortcutStatus[] {
  for (const status of previous) if (status.state === 'active') registry.unregister(status.accelerator);
  return planShortcuts(settings, platform).map(({ canonical: _canonical, ...status }) => {
    if (status.state !== 'active') return status;
    let registered = false;
    try {
      registered = registry.register(status.accelerator, handlers[status.action]);
    } catch {
      // Electron throws for an accelerator it cannot parse; parseAccelerator should have caught it already.
      registered = false;
    }
    if (registered) return status;
    return {
      action: status.action,
      accelerator: status.accelerator,
      state: 'taken' as const,
      message: `${SHORTCUT_LABELS[status.action]}: ${status.accelerator} is in use by another application; choose another shortcut in Settings`,
    };
  });
}

/** The sentences settings show, one per shortcut that does not work; empty when all do. */
export function shortcutProblems(statuses: readonly ShortcutStatus[]): string[] {
  return statuses.flatMap((s) => ('message' in s ? [s.message] : []));
}
