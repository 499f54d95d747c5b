// Settings → Desktop (the desktop app's window only: window.satchel.desktopSettings): the two global shortcuts
// with their defaults and a Reset each, close to tray, open at login, and where push-to-talk's text and files
// opened with Satchel go. A change is sent at once (a checkbox or choice when clicked, a shortcut when its field
// is left or Enter pressed), not on a Save: main answers every change with the shortcuts' problems as they now
// are (a combination another application holds is found only by trying to register it), so the sentence appears
// beside the field the person just changed, while they still look at it. Changes go one after another, in order.
import { byId, h } from './dom.js';
import {
  defaultText,
  DESKTOP_SHORTCUTS,
  MAX_ACCELERATOR_CHARS,
  openAtLoginReason,
  problemsByField,
  shortcutChange,
  type DesktopSettingsBridge,
  type DesktopSettingsChange,
  type DesktopSettingsView,
  type DesktopShortcutAction,
} from './settings-state.js';

export interface DesktopSettingsState {
  view: DesktopSettingsView | null;
  /** Main's `{error}` for the last change (or a failure to reach it). */
  error: string;
}

interface ShortcutFields {
  input: HTMLInputElement;
  reset: HTMLButtonElement;
  defaults: HTMLElement;
  problem: HTMLElement;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class DesktopSettingsSection {
  private readonly section = byId('desktop-settings');
  private readonly closeToTray = byId<HTMLInputElement>('close-to-tray');
  private readonly openAtLogin = byId<HTMLInputElement>('open-at-login');
  private readonly loginReason = byId('open-at-login-reason');
  private readonly error = byId('desktop-error');
  private readonly shortcuts = new Map<DesktopShortcutAction, ShortcutFields>();
  private state: DesktopSettingsState = { view: null, error: '' };
  /** The changes in flight, chained so that answers arrive in the order the person made the changes. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly bridge: DesktopSettingsBridge) {
    this.section.hidden = false;
    const rows = byId('shortcut-settings');
    for (const { action, label } of DESKTOP_SHORTCUTS) {
      const fields: ShortcutFields = {
        input: h('input', {
          id: `shortcut-${action}`,
          'data-testid': 'shortcut-input',
          autocomplete: 'off',
          spellcheck: 'false',
          maxlength: MAX_ACCELERATOR_CHARS,
          'aria-describedby': `shortcut-${action}-default shortcut-${action}-problem`,
        }),
        reset: h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'shortcut-reset', 'aria-label': `Reset ${label} to its default` }, 'Reset'),
        defaults: h('span', { id: `shortcut-${action}-default`, class: 'muted small', 'data-testid': 'shortcut-default' }),
        problem: h('p', { id: `shortcut-${action}-problem`, class: 'error-text small', 'data-testid': 'shortcut-problem', role: 'alert', hidden: true }),
      };
      rows.appendChild(
        h(
          'div',
          { class: 'shortcut-setting', 'data-testid': 'shortcut-setting', 'data-action': action },
          h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), fields.input),
          fields.reset,
          fields.defaults,
          fields.problem,
        ),
      );
      this.shortcuts.set(action, fields);
      fields.input.addEventListener('change', () => {
        const view = this.state.view;
        const change = view && shortcutChange(view, action, fields.input.value);
        if (change) this.send(change);
      });
      fields.reset.addEventListener('click', () => {
        const fallback = this.state.view?.defaults[action];
        if (fallback !== undefined) this.send({ shortcuts: { [action]: fallback } });
      });
    }
    this.closeToTray.addEventListener('change', () => this.send({ closeToTray: this.closeToTray.checked }));
    this.openAtLogin.addEventListener('change', () => this.send({ openAtLogin: this.openAtLogin.checked }));
    for (const [name, key] of [['push-to-talk-to', 'pushToTalkTo'], ['open-with-to', 'openWithTo']] as const) {
      for (const radio of this.radios(name)) radio.addEventListener('change', () => radio.checked && this.send({ [key]: radio.value }));
    }
  }

  /** Read the settings afresh (each time the dialog opens: the tray menu may have changed them). */
  load(): Promise<void> {
    return this.enqueue(undefined);
  }

  update(state: DesktopSettingsState): void {
    this.state = state;
    const view = state.view;
    const problems = problemsByField(view?.problems ?? []);
    for (const { action } of DESKTOP_SHORTCUTS) {
      const fields = this.shortcuts.get(action)!;
      // The field the person is typing in keeps their text until they leave it.
      if (view && document.activeElement !== fields.input) fields.input.value = view.settings.shortcuts[action];
      fields.defaults.textContent = view ? defaultText(view.defaults[action]) : '';
      fields.reset.disabled = !view || view.settings.shortcuts[action] === view.defaults[action];
      const sentences = problems.shortcuts[action];
      fields.problem.textContent = sentences.join(' ');
      fields.problem.hidden = sentences.length === 0;
      fields.input.setAttribute('aria-invalid', sentences.length ? 'true' : 'false');
    }
    this.closeToTray.checked = view?.settings.closeToTray ?? false;
    this.openAtLogin.checked = view?.settings.openAtLogin ?? false;
    this.openAtLogin.disabled = !view?.openAtLoginSupported;
    const reason = view ? openAtLoginReason(view.openAtLoginSupported) : '';
    this.loginReason.textContent = reason;
    this.loginReason.hidden = !reason;
    for (const radio of this.radios('push-to-talk-to')) radio.checked = radio.value === view?.settings.pushToTalkTo;
    for (const radio of this.radios('open-with-to')) radio.checked = radio.value === view?.settings.openWithTo;
    const errors = [state.error, ...problems.other].filter(Boolean);
    this.error.textContent = errors.join(' ');
    this.error.hidden = errors.length === 0;
  }

  private radios(name: string): HTMLInputElement[] {
    return [...this.section.querySelectorAll<HTMLInputElement>(`input[type="radio"][name="${name}"]`)];
  }

  private send(change: DesktopSettingsChange): void {
    void this.enqueue(change);
  }

  private enqueue(change: DesktopSettingsChange | undefined): Promise<void> {
    this.queue = this.queue.then(async () => {
      try {
        const answer = await this.bridge(change);
        // An {error} leaves the settings as they were: the fields are put back to what main holds.
        if ('error' in answer) this.update({ ...this.state, error: answer.error });
        else this.update({ view: answer, error: '' });
      } catch (err) {
        this.update({ ...this.state, error: `The desktop settings could not be changed: ${message(err)}` });
      }
    });
    return this.queue;
  }
}
