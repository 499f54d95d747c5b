// The preview of one file, by kind: an image as an image (SVG too, always through <img>, never inline markup),
// text as text (Markdown rendered), an Office file as its Markdown, a PDF by its text with its pages and title,
// anything else as a card with its name, size and type and "Show in folder" (desktop) or "Download". Beside it,
// what the agent gets where that is not the file's own text (the server's `agent`: a scanned page's OCR text, an
// archive's list and small members, a transcript, an image's recognized text), so a misread word can be caught
// before it is sent. One `update(state)` redraws it from its state.
import { clear, h, icon, ICONS } from './dom.js';
import type { FilePreview, PreviewSource } from './file-preview.js';
import { renderPending, type Pending } from './pending-view.js';
import { formatBytes, isMarkdownName } from './format.js';
import { renderMarkdown } from './markdown-dom.js';

export type PreviewState =
  | Pending
  | { status: 'ready'; preview: FilePreview; source: PreviewSource };

/** What the agent is sent of the file, in its own words: the summary the chip shows, then the text itself. */
export function agentSection(agent: NonNullable<FilePreview['agent']>): HTMLElement {
  const section = h(
    'section',
    { class: 'preview-agent', 'data-testid': 'preview-agent', 'data-state': agent.state, 'aria-label': 'What the agent gets' },
    h('h3', { class: 'preview-agent-title' }, 'What the agent gets'),
    h('p', { class: 'muted small', 'data-testid': 'preview-agent-summary' }, agent.summary),
  );
  if (agent.text) section.appendChild(h('pre', { class: 'plain', 'data-testid': 'preview-agent-text' }, agent.text));
  return section;
}

/** What the desktop preload offers (preload/index.cts); absent in a browser. */
export interface ShowInFolder {
  (absPath: string): Promise<boolean>;
}

const ENCODING_LABELS: Record<NonNullable<FilePreview['encoding']>, string> = {
  'utf-8': 'UTF-8',
  'utf-8-bom': 'UTF-8 with BOM',
  'utf-16le': 'UTF-16 LE',
  'utf-16be': 'UTF-16 BE',
  'windows-1252': 'Windows-1252',
  'iso-8859-1': 'ISO-8859-1 (Latin-1)',
};

const KIND_LABELS: Record<FilePreview['kind'], string> = { image: 'Image', text: 'Text', office: 'Office document', pdf: 'PDF', binary: 'File' };

export function metaLine(p: FilePreview): string {
  const parts = [KIND_LABELS[p.kind], formatBytes(p.size)];
  if (p.encoding) parts.push(ENCODING_LABELS[p.encoding]);
  if (p.pages !== undefined) parts.push(`${p.pages} ${p.pages === 1 ? 'page' : 'pages'}`);
  if (p.source === 'sidecar') parts.push('text from its Markdown sidecar');
  if (p.truncated) parts.push('shown in part');
  return parts.join(' · ');
}

export class PreviewView {
  readonly el = h('div', { class: 'file-preview', 'data-testid': 'file-preview' });
  /** Kind, size, encoding…: kept apart from `el`, whose text is the file's own. */
  readonly meta = h('p', { class: 'muted small preview-meta', 'data-testid': 'preview-meta', hidden: true });

  constructor(private readonly showInFolder: ShowInFolder | undefined) {}

  update(state: PreviewState): void {
    clear(this.el);
    this.el.dataset.state = state.status;
    this.meta.hidden = state.status !== 'ready';
    if (state.status !== 'ready') {
      renderPending(this.el, state);
      return;
    }
    const { preview: p, source } = state;
    this.el.dataset.kind = p.kind;
    this.meta.textContent = p.title ? `${p.title} · ${metaLine(p)}` : metaLine(p);
    if (p.note) this.el.appendChild(h('p', { class: 'small', 'data-testid': 'preview-note' }, p.note));
    const body = this.body(p, source);
    const card = p.kind !== 'image' && p.kind !== 'text' ? this.card(p, source) : null;
    if (!p.agent) {
      if (body) this.el.appendChild(body);
      if (card) this.el.appendChild(card);
      return;
    }
    // The file on one side, what the agent gets on the other (stacked when the dialog is narrow).
    const file = h('div', { class: 'preview-file' });
    if (body) file.appendChild(body);
    if (card) file.appendChild(card);
    this.el.appendChild(h('div', { class: 'preview-pair' }, file, agentSection(p.agent)));
  }

  private body(p: FilePreview, source: PreviewSource): HTMLElement | null {
    if (p.kind === 'image') {
      // <img> never runs an SVG's scripts; the raw route's own policy covers the file opened directly.
      return h('div', { class: 'preview-image-box' }, h('img', { class: 'preview-image', 'data-testid': 'preview-image', src: source.rawUrl, alt: p.name }));
    }
    if (p.text === undefined) return null;
    if (p.kind === 'office' || (p.kind === 'text' && isMarkdownName(p.name))) {
      return h('div', { class: 'md', 'data-testid': 'preview-markdown' }, renderMarkdown(p.text));
    }
    return h('pre', { class: 'plain', 'data-testid': 'preview-text' }, p.text);
  }

  /** Name, size, type and what can be done with the file itself. */
  private card(p: FilePreview, source: PreviewSource): HTMLElement {
    const show = this.showInFolder;
    const action = show
      ? h('button', { class: 'btn', type: 'button', 'data-testid': 'preview-show-in-folder', onclick: () => void show(p.abs_path) }, icon([...ICONS.folder]), 'Show in folder')
      : h('a', { class: 'btn', href: source.downloadUrl, download: p.name, 'data-testid': 'preview-download' }, 'Download');
    return h(
      'div',
      { class: 'preview-card', 'data-testid': 'preview-card' },
      icon([...ICONS.file]),
      h(
        'dl',
        { class: 'preview-facts' },
        h('dt', {}, 'Name'),
        h('dd', { 'data-testid': 'preview-card-name' }, p.name),
        h('dt', {}, 'Size'),
        h('dd', {}, `${formatBytes(p.size)} (${p.size.toLocaleString('en-US')} bytes)`),
        h('dt', {}, 'Type'),
        h('dd', { 'data-testid': 'preview-card-type' }, p.mime),
      ),
      action,
    );
  }
}
