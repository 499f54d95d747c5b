// The composer's attachment chips: built from the store's draft by id, a chip's element rebuilt only when more
// than its byte count changed (a progress tick only sets the bar's values, so focus on its Cancel survives).
import { shownName } from './attachment-name.js';
import { agentViewLineFor } from './agent-view.js';
import type { Attachment, SentAttachment } from './api.js';
import { clear, h, icon, ICONS } from './dom.js';
import { formatBytes, isArchiveName } from './format.js';
import { sizeCheck, UploadAborted, uploadMultipart, type UploadHandle } from './upload.js';
import { withSkipped } from './skipped-view.js';
import type { Chip } from './store.js';
import { extractedList, ProgressView } from './upload-view.js';

export interface ChipActions {
  /** Extract an archive chip; absent, archives are sent as they are (the quick-capture window). */
  extract?(id: number): void;
  /** Remove the chip, or cancel what it is doing (its upload or extraction). */
  cancel(id: number): void;
  /** The session the chips' uploads are stored in (the draft's), to ask what the agent will get from each. */
  session(): string | undefined;
}

/**
 * What a chip sends: its upload, and for an extracted archive also the extraction, with its file count and the
 * upload it came from (`archive_path`: Edit puts the two back on one chip by it).
 */
export function sentAttachments(chip: Chip): SentAttachment[] {
  const out = chip.result ? [chip.result] : [];
  const x = chip.extract?.status === 'done' ? chip.extract.result : undefined;
  if (x) {
    const archive = chip.result && 'filename' in chip.result ? { archive_path: chip.result.path } : {};
    out.push(chip.extract?.sent ?? { kind: 'extraction', name: chip.name, path: x.dest, extracted: true, file_count: x.extracted, ...archive });
  }
  return out;
}

/**
 * The chip of a file picked, dropped or pasted in this page: queued for upload, or an error at once when it is
 * bigger than the server takes (the same check and words in the composer and the quick-capture window).
 */
export function pickedChip(id: number, file: File, maxUploadBytes: number | undefined): Chip {
  const tooBig = sizeCheck(file.name, file.size, maxUploadBytes, formatBytes);
  return {
    id,
    name: file.name,
    size: file.size,
    origin: { kind: 'picked' },
    status: tooBig ? 'error' : 'queued',
    loaded: 0,
    error: tooBig ?? undefined,
    thumbUrl: file.type.startsWith('image/') ? URL.createObjectURL(file) : undefined,
  };
}

/** A picked file's bytes and its upload while it runs: what the page holds beside the chip's data. */
export interface PickedUpload {
  file: File;
  handle?: UploadHandle<Attachment>;
}

/** What uploading one chip's file needs from the page that holds the chip (the composer, quick capture). */
export interface ChipUploadHost {
  /** The conversation to store it in (made on first need). */
  session(): Promise<string>;
  /** The chip is still there (not removed while waiting). */
  held(id: number): boolean;
  setChip(id: number, change: (c: Chip) => Chip): void;
  /** Stored: the draft has something new to keep. */
  stored(): void;
}

/** Upload the chip's file into the page's conversation, its bar following the bytes; the chip says how it ended. */
export async function uploadChipFile(id: number, up: PickedUpload, host: ChipUploadHost): Promise<void> {
  host.setChip(id, (c) => ({ ...c, status: 'uploading' }));
  try {
    const sessionId = await host.session();
    if (!host.held(id)) return; // cancelled while the session was being created
    up.handle = uploadMultipart<Attachment>('/api/upload', { session_id: sessionId }, [{ field: 'file', filename: up.file.name, blob: up.file }], (p) =>
      host.setChip(id, (c) => ({ ...c, loaded: p.loaded })),
    );
    const result = await up.handle.promise;
    host.setChip(id, (c) => uploadedChip(c, result));
    host.stored();
  } catch (err) {
    if (err instanceof UploadAborted) return; // the chip is already gone
    host.setChip(id, (c) => ({ ...c, status: 'error', error: err instanceof Error ? err.message : String(err) }));
  } finally {
    up.handle = undefined;
  }
}

/**
 * The chip once its upload is stored: named by the stored name the server answered with (a second `project.zip`
 * is stored as `project-1.zip`, and the message the agent gets names that one; a `server.log.gz` is stored
 * decompressed as `server.log`), so the chip and the message never name two files.
 */
export function uploadedChip(chip: Chip, result: SentAttachment): Chip {
  const name = 'filename' in result ? shownName(result) : result.name;
  return { ...chip, status: 'done', loaded: chip.size, result, name };
}

/** "(from server.log.gz)" for a file stored decompressed, else null. */
export function originNote(chip: Chip): string | null {
  const from = chip.result && 'filename' in chip.result ? chip.result.decompressed_from : undefined;
  return from ? `(from ${from})` : null;
}

/** The chip is an upload stored in the session (not a sent message's extraction reference). */
export function storedUpload(chip: Chip): Extract<SentAttachment, { filename: string }> | undefined {
  return chip.status === 'done' && chip.result && 'filename' in chip.result ? chip.result : undefined;
}

/**
 * What the chip will send the agent, by its name in the session's attachment folder (and a stamp telling two
 * files of one name apart): the extraction once an archive is extracted, else the stored upload; nothing while
 * it uploads or extracts.
 */
export function agentSubject(chip: Chip): { name: string; stamp: string } | undefined {
  if (chip.status !== 'done' || chip.extract?.status === 'running') return undefined;
  const base = (p: string) => p.split(/[\\/]/).filter(Boolean).pop() ?? '';
  const x = chip.extract?.status === 'done' ? chip.extract.result : undefined;
  if (x) return { name: base(x.dest), stamp: x.dest };
  if (!chip.result) return undefined;
  if ('filename' in chip.result) return { name: chip.result.filename, stamp: String(chip.result.size) };
  return { name: base(chip.result.path), stamp: chip.result.path };
}

interface Drawn {
  chip: Chip;
  el: HTMLLIElement;
  progress: ProgressView;
}

export class ChipsView {
  private drawn = new Map<number, Drawn>();

  constructor(
    readonly el: HTMLUListElement,
    private readonly actions: ChipActions,
  ) {}

  update(chips: readonly Chip[]): void {
    const next = new Map<number, Drawn>();
    for (const chip of chips) {
      const known = this.drawn.get(chip.id);
      const d = known ?? { chip, el: h('li'), progress: new ProgressView('attachment-bytes', 'chip-bytes') };
      if (!known || known.chip !== chip) {
        if (!known || !sameButBytes(known.chip, chip)) this.render(d, chip);
        d.chip = chip;
        this.progress(d);
      }
      next.set(chip.id, d);
    }
    for (const [id, d] of this.drawn) if (!next.has(id)) d.el.remove();
    this.drawn = next;
    let at: ChildNode | null = this.el.firstChild;
    for (const { el } of next.values()) {
      if (at === el) at = el.nextSibling;
      else this.el.insertBefore(el, at);
    }
  }

  private progress({ chip, progress }: Drawn): void {
    progress.update(`Uploading ${chip.name}`, chip.status === 'done' ? chip.size : chip.loaded, chip.size);
  }

  /** The chip from its state; the progress bar and counter are the chip's own, reused. */
  private render(d: Drawn, chip: Chip): void {
    const { el, progress } = d;
    const name = chip.name;
    clear(el);
    el.className = `chip chip-${chip.status}`;
    el.dataset.testid = 'attachment-chip';
    el.dataset.status = chip.status;
    // The stored name (what the routes take) once there is one; the shown one beside it.
    el.dataset.filename = chip.result && 'filename' in chip.result ? chip.result.filename : name;
    el.dataset.name = name;
    const thumb = chip.thumbUrl
      ? h('img', { class: 'chip-thumb', src: chip.thumbUrl, alt: '', 'data-testid': 'attachment-thumb' })
      : h('span', { class: 'chip-thumb chip-icon' }, icon([...(isArchiveName(name) ? ICONS.archive : ICONS.file)]));
    const extracting = chip.extract?.status === 'running';
    const from = originNote(chip);
    const subject = agentSubject(chip);
    const session = subject ? this.actions.session() : undefined;
    // What the agent will get, in place of a bare "Attached" that promised the agent could read anything.
    const agentView = subject && session ? agentViewLineFor(session, subject.name, subject.stamp) : null;
    const main = h(
      'div',
      { class: 'chip-main' },
      h('span', { class: 'chip-name', title: name }, name),
      from ? h('span', { class: 'muted small', 'data-testid': 'attachment-origin' }, from) : null,
      chip.status === 'uploading' || chip.status === 'queued' ? progress.bar : null,
      chip.status === 'error' ? null : progress.bytes,
      chip.status === 'queued' ? h('span', { class: 'muted small' }, 'Waiting…') : null,
      extracting ? h('span', { class: 'muted small', role: 'status', 'data-testid': 'extract-running' }, 'Extracting…') : null,
      agentView?.el ?? null,
      chip.error ? h('span', { class: 'error-text', 'data-testid': 'attachment-error', role: 'alert' }, chip.error) : null,
      extraction(chip),
    );
    const actions = h('div', { class: 'chip-actions' });
    // Only a stored upload extracts (a sent message's extraction reference has its archive's name but no file).
    const extract = this.actions.extract?.bind(this.actions);
    if (extract && storedUpload(chip) && isArchiveName(name) && !chip.extract) {
      actions.appendChild(h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'attachment-extract', onclick: () => extract(chip.id) }, 'Extract'));
    }
    const busy = chip.status === 'uploading' || extracting;
    actions.appendChild(
      h(
        'button',
        {
          class: 'icon-btn',
          type: 'button',
          'data-testid': 'attachment-cancel',
          'aria-label': busy ? `Cancel upload of ${name}` : `Remove ${name}`,
          title: busy ? 'Cancel upload' : 'Remove',
          onclick: () => this.actions.cancel(chip.id),
        },
        icon([...ICONS.x]),
      ),
    );
    // The chip is described by what the agent gets: its controls carry it to a screen reader too.
    if (agentView) {
      el.setAttribute('aria-describedby', agentView.el.id);
      for (const b of actions.querySelectorAll('button')) b.setAttribute('aria-describedby', agentView.el.id);
    } else el.removeAttribute('aria-describedby');
    el.append(thumb, main, actions);
  }
}

/** Only the byte count moved: the element stays, its progress bar takes the new values. */
function sameButBytes(a: Chip, b: Chip): boolean {
  return a.status === b.status && a.extract === b.extract && a.error === b.error && a.result === b.result && a.thumbUrl === b.thumbUrl;
}

function extraction(chip: Chip): HTMLElement | null {
  const x = chip.extract;
  if (!x || x.status === 'running') return null;
  if (x.status === 'error') return h('span', { class: 'error-text', 'data-testid': 'extract-error', role: 'alert' }, x.error ?? 'Extraction failed');
  const r = x.result;
  if (!r) return null;
  return withSkipped(extractedList(r.extracted, r.files, '', true, r.dest), r.skipped, '');
}
