// A long paste offered as an attachment (issue 38 item 9): the paste lands in the box as always (nothing is lost
// when the offer is ignored), and a line under the box says how long it was, with "Attach as a file" (the pasted
// text leaves the box and becomes a chip, pasted-text-<date>.txt or .md) and "Keep as text" (the offer goes).
import { h } from './dom.js';
import { LONG_PASTE_CHARS, pastedText, pastedTextFile } from './composer-paste.js';
import { fromFileList, type PickedFile } from './files.js';

interface Offered {
  text: string;
  /** Where in the box the paste went. */
  at: number;
}

export class PasteOffer {
  readonly el: HTMLElement;
  private readonly said: HTMLElement;
  private offered: Offered | null = null;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly attach: (files: PickedFile[]) => void,
  ) {
    this.said = h('span', { 'data-testid': 'paste-offer-text' });
    this.el = h(
      'div',
      { class: 'paste-offer small', 'data-testid': 'paste-offer', role: 'group', 'aria-label': 'Long paste', hidden: true },
      this.said,
      h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'paste-attach', onclick: () => this.attachAsFile() }, 'Attach as a file'),
      h('button', { class: 'link-btn', type: 'button', 'data-testid': 'paste-keep', onclick: () => this.keep() }, 'Keep as text'),
    );
    input.addEventListener('input', () => this.check());
  }

  /** A paste into the box: offered when it is long and holds no files (those are attached already). */
  pasted(e: ClipboardEvent): void {
    if ((e.clipboardData?.files.length ?? 0) > 0) return;
    const text = pastedText(e);
    if (text.length <= LONG_PASTE_CHARS) return;
    this.offered = { text, at: this.input.selectionStart ?? this.input.value.length };
    this.said.textContent = `Pasted ${text.length.toLocaleString('en-US')} characters.`;
    this.el.hidden = false;
  }

  /** The box changed (typed, sent, another draft): the offer goes once the pasted text is no longer in it. */
  check(): void {
    if (this.offered && this.find(this.offered) < 0) this.keep();
  }

  private find({ text, at }: Offered): number {
    const value = this.input.value;
    return value.startsWith(text, at) ? at : value.indexOf(text);
  }

  private keep(): void {
    this.offered = null;
    this.el.hidden = true;
  }

  private attachAsFile(): void {
    const offered = this.offered;
    if (!offered) return;
    const at = this.find(offered);
    this.keep();
    if (at < 0) return;
    const value = this.input.value;
    this.input.value = value.slice(0, at) + value.slice(at + offered.text.length);
    this.input.setSelectionRange(at, at);
    // The composer reads the box's changes from its input event (the draft, its size, the saved draft).
    this.input.dispatchEvent(new Event('input', { bubbles: true }));
    this.attach(fromFileList([pastedTextFile(offered.text)]));
    this.input.focus();
  }
}
