// Settings → Dictation: how many seconds of silence end a recording (dictation-silence.ts), kept in this browser.
import { h } from './dom.js';
import { MAX_SILENCE_STOP_SECONDS, parseSilenceSeconds, setSilenceStopSeconds, silenceStopSeconds } from './dictation-silence.js';

export const SILENCE_FIELD_ERROR = `Type a number of seconds from 0 to ${MAX_SILENCE_STOP_SECONDS} (0: never stop on silence).`;

export class DictationSection {
  readonly element: HTMLElement;
  private readonly field = h('input', {
    id: 'dictation-silence',
    type: 'number',
    min: '0',
    max: String(MAX_SILENCE_STOP_SECONDS),
    step: '0.5',
    inputmode: 'decimal',
    class: 'dictation-silence',
    'data-testid': 'dictation-silence',
    'aria-describedby': 'dictation-silence-error',
  }) as HTMLInputElement;
  private readonly error = h('p', { id: 'dictation-silence-error', class: 'error-text small', 'data-testid': 'dictation-silence-error', role: 'alert', hidden: '' });

  constructor() {
    this.element = h(
      'section',
      { class: 'settings-section', 'data-testid': 'dictation-settings', 'aria-labelledby': 'dictation-settings-heading' },
      h('h3', { id: 'dictation-settings-heading' }, 'Dictation'),
      h('label', { class: 'small', for: 'dictation-silence' }, 'Stop recording after this many seconds of silence (0: never) '),
      this.field,
      this.error,
    );
    this.field.addEventListener('change', () => this.save());
  }

  /** Each time Settings opens: what this browser keeps now (another window may have changed it). */
  load(): void {
    this.field.value = String(silenceStopSeconds());
    this.show('');
  }

  private save(): void {
    const seconds = parseSilenceSeconds(this.field.value);
    if (seconds === null) return this.show(SILENCE_FIELD_ERROR);
    setSilenceStopSeconds(seconds);
    this.show('');
  }

  private show(error: string): void {
    this.error.textContent = error;
    this.error.hidden = !error;
    this.field.setAttribute('aria-invalid', error ? 'true' : 'false');
  }
}
