// View pieces shared by the composer's attachment chips and the workspace panel's upload rows: the progress
// bar with its byte counter, the "Extracted N files" list, and a drop zone for files and folders.
import { h } from './dom.js';
import { extractionRelative } from './extract-paths.js';
import { dragHasFiles, filesFromDataTransfer, type PickedFile } from './files.js';
import { formatProgress } from './format.js';
import { notify } from './toast.js';

/** A progress bar and its "1.0 MB / 6.0 MB" counter; update() only sets values, so focus nearby survives. */
export class ProgressView {
  readonly bar: HTMLDivElement;
  readonly bytes: HTMLSpanElement;
  private readonly fill = h('div', { class: 'progress-fill' });

  constructor(bytesTestId: string, bytesClass: string) {
    this.bar = h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': 0 }, this.fill);
    this.bytes = h('span', { class: bytesClass, 'data-testid': bytesTestId });
  }

  update(label: string, loaded: number, total: number): void {
    const text = formatProgress(loaded, total);
    this.bar.setAttribute('aria-label', label);
    this.bar.setAttribute('aria-valuemax', String(total));
    this.bar.setAttribute('aria-valuenow', String(loaded));
    this.bar.setAttribute('aria-valuetext', text);
    this.fill.style.width = `${(total > 0 ? (loaded / total) * 100 : 100).toFixed(2)}%`;
    this.bytes.textContent = text;
    this.bytes.dataset.loaded = String(loaded);
    this.bytes.dataset.total = String(total);
  }
}

/**
 * "Extracted N files" over the list of their paths. `testPrefix` keeps each panel's test ids apart
 * ('' in the composer: extract-result, extract-list, extract-file; 'ws-' in the workspace panel). With `dest`
 * (the extraction folder) the paths read relative to it. Long names wrap, never cut; the full one is on hover.
 */
export function extractedList(count: number, files: readonly string[], testPrefix: string, open: boolean, dest?: string): HTMLDetailsElement {
  const shown = dest === undefined ? files : extractionRelative(files, dest);
  return h(
    'details',
    { class: 'extract-result', 'data-testid': `${testPrefix}extract-result`, open },
    h('summary', { 'data-testid': `${testPrefix}extract-summary` }, `Extracted ${count} file${count === 1 ? '' : 's'}`),
    h('ul', { class: 'extract-list', 'data-testid': `${testPrefix}extract-list` }, shown.map((f) => h('li', { 'data-testid': `${testPrefix}extract-file`, title: f }, f))),
  );
}

export interface DropZoneOptions {
  /** Class on `el` while files are dragged over it. */
  hoverClass: string;
  onFiles(files: PickedFile[]): void;
}

/**
 * Accept dropped files and folders on `el`. Zones may nest (a folder row inside the workspace panel): the
 * innermost one takes the drop and marks the event handled, so an outer zone only clears its highlight.
 */
export function dropZone(el: HTMLElement, opts: DropZoneOptions): void {
  // dragenter/dragleave also fire for every child crossed: count them so the highlight doesn't flicker.
  let depth = 0;
  const set = (on: boolean) => el.classList.toggle(opts.hoverClass, on);
  el.addEventListener('dragenter', (e) => {
    if (!dragHasFiles(e)) return;
    depth++;
    set(true);
  });
  el.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) set(false);
  });
  el.addEventListener('dragover', (e) => {
    if (!dragHasFiles(e)) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
  });
  el.addEventListener('drop', (e) => {
    depth = 0;
    set(false);
    const dt = e.dataTransfer;
    if (!dt || e.defaultPrevented) return;
    e.preventDefault();
    filesFromDataTransfer(dt).then(opts.onFiles, (err: unknown) => notify(err instanceof Error ? err.message : String(err), 'error'));
  });
}
