// Read aloud: a speaker button on each reply speaks it with the system's voices (the Web Speech API's
// speechSynthesis: on-device, nothing leaves the machine), and pressed again stops. One reply speaks at a time.
// The buttons show only where the system has voices: `speechSynthesis` may be missing (some Electron builds,
// hardened browsers) or have none (headless Chromium, a Linux desktop without speech-dispatcher), and the
// list may fill late (Chromium loads it after the page and says so with `voiceschanged`). The root element's
// `data-speech` says which ("on" or "off"); a CSS rule hides the buttons otherwise, so rows drawn before the
// voices arrived show theirs too.
import { h, icon } from './dom.js';
import { speechText } from './speech-text.js';

const SPEAKER = ['M11 5L6 9H2v6h4l5 4z', 'M15.5 8.5a5 5 0 0 1 0 7', 'M19 5a10 10 0 0 1 0 14'];
const READ_LABEL = 'Read aloud';
const STOP_LABEL = 'Stop reading';

class ReadAloud {
  private readonly synth: SpeechSynthesis | undefined = typeof speechSynthesis === 'undefined' ? undefined : speechSynthesis;
  private speaking: { button: HTMLButtonElement; utterance: SpeechSynthesisUtterance } | null = null;

  constructor() {
    this.refresh();
    this.synth?.addEventListener?.('voiceschanged', () => this.refresh());
  }

  /** Whether the system has a voice now; the root's flag follows it. */
  private refresh(): void {
    let voices = 0;
    try {
      voices = this.synth?.getVoices().length ?? 0;
    } catch {
      voices = 0;
    }
    document.documentElement.dataset.speech = voices > 0 ? 'on' : 'off';
    if (voices === 0 && this.speaking) this.stop();
  }

  button(markdown: string): HTMLButtonElement {
    const button = h('button', { class: 'icon-btn msg-action read-aloud', type: 'button', 'data-testid': 'read-aloud', 'aria-pressed': 'false', 'aria-label': READ_LABEL, title: READ_LABEL }, icon(SPEAKER));
    button.addEventListener('click', () => this.toggle(button, markdown));
    return button;
  }

  private toggle(button: HTMLButtonElement, markdown: string): void {
    const again = this.speaking?.button === button;
    this.stop();
    if (again || !this.synth) return;
    const text = speechText(markdown);
    if (!text) return;
    const utterance = new SpeechSynthesisUtterance(text);
    // The page's language picks the voice; the system's default voice for it speaks.
    utterance.lang = document.documentElement.lang || 'en';
    const done = () => {
      if (this.speaking?.utterance === utterance) this.settle();
    };
    utterance.addEventListener('end', done);
    utterance.addEventListener('error', done);
    this.speaking = { button, utterance };
    mark(button, true);
    this.synth.speak(utterance);
  }

  private stop(): void {
    if (!this.speaking) return;
    this.settle();
    this.synth?.cancel();
  }

  private settle(): void {
    if (this.speaking) mark(this.speaking.button, false);
    this.speaking = null;
  }
}

function mark(button: HTMLButtonElement, on: boolean): void {
  button.setAttribute('aria-pressed', String(on));
  button.setAttribute('aria-label', on ? STOP_LABEL : READ_LABEL);
  button.title = on ? STOP_LABEL : READ_LABEL;
}

let instance: ReadAloud | undefined;

/** The speaker button of a reply whose text (Markdown) is `markdown`. */
export function readAloudButton(markdown: string): HTMLButtonElement {
  instance ??= new ReadAloud();
  return instance.button(markdown);
}

/** Looks for voices now, so the buttons' place is known before the first reply is drawn. */
export function initReadAloud(): void {
  instance ??= new ReadAloud();
}
