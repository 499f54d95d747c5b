// The message composer: text, attachment chips with byte-accurate progress and cancel, archive extraction,
// paste and drag-and-drop of files and folders, and Send. What it holds is the draft of one session, kept on
// the server (draft-sync.ts) so a reload or a restart brings it back.
import { api, ApiError, type Attachment, type ChatAttachment, type ExtractedAttachment, type ExtractResult, type Session } from './api.js';
import { byId, clear, h, icon, ICONS } from './dom.js';
import { DraftSaver, draftApi, type DraftContent, type DraftItem } from './draft-sync.js';
import { fromFileList, type PickedFile } from './files.js';
import { formatBytes, isArchiveName } from './format.js';
import { notify } from './toast.js';
import { UploadQueue } from './upload-queue.js';
import { dropZone, extractedList, ProgressView } from './upload-view.js';
import { withSkipped } from './skipped-view.js';
import { sizeCheck, UploadAborted, uploadMultipart, type UploadHandle } from './upload.js';
import { attachmentSource } from './file-preview.js';
import { fetchFolder } from './preview.js';
import { extractStored } from './stored-extract.js';

/** Parallel uploads from one composer: enough to keep a loopback link busy without starving the UI. */
export const MAX_PARALLEL_UPLOADS = 3;
/** Textarea growth limit before it scrolls. */
const MAX_INPUT_HEIGHT_PX = 220;

type Status = 'queued' | 'uploading' | 'done' | 'error';

interface ExtractState {
  status: 'running' | 'done' | 'error';
  loaded: number;
  total: number;
  result?: ExtractResult;
  error?: string;
  handle?: UploadHandle<ExtractResult>;
  /** Extracting the stored file on the server (a chip restored from the draft or by Edit): nothing is uploaded, so no byte progress. */
  stored?: boolean;
  /** Brought back by Edit: the sent message's own reference to the extraction, sent again as it was. */
  sent?: ExtractedAttachment;
}

interface Pending {
  id: number;
  file: File;
  status: Status;
  loaded: number;
  total: number;
  result?: ChatAttachment;
  /** Brought back from a sent message (Edit): already stored, nothing to upload, and never deleted. */
  carried?: boolean;
  /** Brought back from the stored draft: already stored; removing it deletes the stored file. */
  restored?: boolean;
  error?: string;
  handle?: UploadHandle<Attachment>;
  /** An image's thumbnail: the picked file's blob URL, or the stored bytes' URL for a restored chip. */
  thumbUrl?: string;
  extract?: ExtractState;
  el: HTMLLIElement;
  /** Kept across updates so a progress tick only sets values. */
  progress: ProgressView;
}

export interface ComposerDeps {
  /** The current session id, creating a session first when there is none. */
  ensureSession(): Promise<string>;
  maxUploadBytes(): number | undefined;
  onSent(session: Session): void;
  /** An agent is connected: Send starts a conversation turn instead of only storing the message. */
  agentReady(): boolean;
  /** Start a turn; rejects with the server's error. */
  startTurn(sessionId: string, text: string, attachments: ChatAttachment[]): Promise<void>;
  /** Stop the running turn. */
  stop(): void;
}

export class Composer {
  private readonly list = byId<HTMLUListElement>('attachments');
  private readonly input = byId<HTMLTextAreaElement>('composer-input');
  private readonly send = byId<HTMLButtonElement>('send-button');
  private readonly stopButton = byId<HTMLButtonElement>('stop-button');
  private readonly notice = byId('agent-notice');
  private turnRunning = false;
  private readonly form = byId<HTMLFormElement>('composer');
  private readonly fileInput = byId<HTMLInputElement>('file-input');
  private items: Pending[] = [];
  private readonly queue = new UploadQueue<Pending>(MAX_PARALLEL_UPLOADS, (item) => this.upload(item));
  private nextId = 1;
  private sending = false;
  /** The session whose draft this is (null: none yet, e.g. before the first drop creates one). */
  private owner: string | null = null;
  /** Only the latest draft load may fill the composer. */
  private loadSeq = 0;
  private readonly drafts = new DraftSaver(() => (this.owner ? { sessionId: this.owner, content: this.content() } : null));

  constructor(private readonly deps: ComposerDeps) {
    const attach = byId<HTMLButtonElement>('attach-button');
    attach.appendChild(icon([...ICONS.paperclip]));
    attach.title = 'Attach files';
    attach.addEventListener('click', () => this.fileInput.click());
    this.fileInput.addEventListener('change', () => {
      const files = fromFileList(Array.from(this.fileInput.files ?? []));
      this.fileInput.value = '';
      this.addFiles(files);
    });
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.submit();
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        void this.submit();
      }
    });
    this.input.addEventListener('input', () => {
      this.autosize();
      this.drafts.schedule();
    });
    this.stopButton.addEventListener('click', () => this.deps.stop());
    this.input.addEventListener('paste', (e) => this.onPaste(e));
    dropZone(this.form.closest('main') ?? this.form, { hoverClass: 'dragging', onFiles: (files) => this.addFiles(files) });
    this.refreshSend();
  }

  focus(): void {
    this.input.focus();
  }

  /** Insert text at the caret (or over the selection), with spaces so words don't run together. */
  insertAtCursor(text: string): void {
    const el = this.input;
    const start = el.selectionStart ?? el.value.length;
    const end = el.selectionEnd ?? el.value.length;
    const before = el.value.slice(0, start);
    const after = el.value.slice(end);
    const lead = before && !/\s$/.test(before) ? ' ' : '';
    const trail = after && !/^\s/.test(after) ? ' ' : '';
    const insert = `${lead}${text}${trail}`;
    el.value = before + insert + after;
    const caret = before.length + insert.length;
    el.setSelectionRange(caret, caret);
    el.focus();
    this.autosize();
    this.refreshSend();
  }

  /** Send what the composer holds, as the Send button would (hold to talk, release to send). */
  submitNow(): void {
    void this.submit();
  }

  /** A turn runs in the session on screen: Stop replaces Send until it ends. */
  setTurnRunning(running: boolean): void {
    this.turnRunning = running;
    this.stopButton.hidden = !running;
    this.send.hidden = running;
    this.refreshSend();
  }

  /** Whether an agent answers: without one, the notice says so and links to the settings. */
  setAgentReady(ready: boolean): void {
    this.notice.hidden = ready;
  }

  /**
   * The composer now belongs to session `id`. `keep`: what it holds already belongs to that session (files
   * dropped while it was being created), so it stays and is saved as its draft. Otherwise the draft of the
   * session left is saved, and the new session's stored draft fills the composer.
   */
  bindSession(id: string | null, keep = false): void {
    if (id === this.owner) return;
    if (keep) {
      this.owner = id;
      this.drafts.schedule();
      return;
    }
    void this.drafts.flush();
    this.owner = id;
    this.input.value = '';
    this.reset();
    this.autosize();
    if (id) void this.loadDraft(id);
  }

  /** Leave the current session's draft (saved first) with an empty composer that belongs to no session yet. */
  leave(): void {
    void this.drafts.flush();
    this.owner = null;
    this.input.value = '';
    this.reset();
    this.autosize();
  }

  private async loadDraft(id: string): Promise<void> {
    const seq = ++this.loadSeq;
    let draft;
    try {
      draft = await draftApi.load(id);
    } catch {
      return; // no draft to show; the composer stays empty
    }
    if (seq !== this.loadSeq || this.owner !== id) return;
    // Typed or dropped meanwhile: that goes first, the stored draft joins it.
    if (!this.input.value) this.input.value = draft.text;
    for (const a of draft.attachments) {
      const { extract, ...attachment } = a;
      const item = this.storedChip(attachment, false, id);
      item.restored = true;
      // Skipped members were said when it was extracted; the draft keeps only what was written.
      if (extract) {
        const result = { ok: true as const, ...extract, skipped: [] };
        item.extract = { status: 'done', loaded: 0, total: 0, result };
      }
      this.update(item);
    }
    this.drafts.known(id, this.content());
    this.autosize();
  }

  /** The draft as the server keeps it: the text and the uploaded chips of this session, with their extraction. */
  private content(): DraftContent {
    const attachments: DraftItem[] = [];
    for (const i of this.items) {
      if (i.status !== 'done' || !i.result || !('filename' in i.result) || i.carried) continue;
      const x = i.extract?.status === 'done' ? i.extract.result : undefined;
      attachments.push(x ? { path: i.result.path, extract: { dest: x.dest, extracted: x.extracted, files: x.files } } : { path: i.result.path });
    }
    return { text: this.input.value, attachments };
  }

  /** A chip for an attachment stored already (a sent message's, or the draft's). */
  private storedChip(a: ChatAttachment, carried: boolean, sessionId: string | null): Pending {
    const name = 'filename' in a ? a.filename : a.name;
    const size = 'filename' in a ? a.size : 0;
    const item: Pending = {
      id: this.nextId++,
      file: new File([], name),
      status: 'done',
      loaded: size,
      total: size,
      result: a,
      carried,
      el: h('li'),
      progress: new ProgressView('attachment-bytes', 'chip-bytes'),
    };
    // Its bytes are not in the page: the stored file is its thumbnail.
    if ('filename' in a && a.is_image && sessionId) item.thumbUrl = attachmentSource(sessionId, a.filename).rawUrl;
    this.items.push(item);
    this.list.appendChild(item.el);
    return item;
  }

  /**
   * Put a sent message back for editing: its text, and its attachments as already-uploaded chips. An archive
   * sent with its extraction (the extraction right after it, under its name) is one chip showing that extraction.
   */
  setDraft(text: string, attachments: readonly ChatAttachment[]): void {
    this.reset();
    const sessionId = this.owner;
    for (let i = 0; i < attachments.length; i++) {
      const a = attachments[i]!;
      const item = this.storedChip(a, true, sessionId);
      const next = attachments[i + 1];
      if ('filename' in a && next && !('filename' in next) && next.name === a.filename) {
        i++;
        const result: ExtractResult = { ok: true, extracted: next.files ?? 0, files: [], dest: next.path, skipped: [] };
        item.extract = { status: 'done', loaded: 0, total: 0, result, sent: next };
        if (sessionId) void this.listCarriedExtraction(item, sessionId, next);
      }
      this.update(item);
    }
    this.input.value = text;
    this.input.focus();
    this.input.setSelectionRange(text.length, text.length);
    this.autosize();
  }

  /** The sent message keeps only how many files its extraction wrote: their names come from the folder itself. */
  private async listCarriedExtraction(item: Pending, sessionId: string, x: ExtractedAttachment): Promise<void> {
    const state = item.extract;
    const folder = x.path.split(/[\\/]/).filter(Boolean).pop() ?? '';
    let listed;
    try {
      listed = await fetchFolder(sessionId, folder);
    } catch {
      return; // the count the message kept still says what was extracted
    }
    if (!this.items.includes(item) || item.extract !== state || !state?.result) return;
    // Relative to the session's attachment folder, as an extraction's own result names them.
    state.result = { ...state.result, extracted: x.files ?? listed.total, files: listed.files.map((f) => `${folder}/${f.path}`) };
    this.update(item);
  }

  /** Forget pending attachments, e.g. when switching to another session (the draft was saved before). */
  reset(): void {
    this.loadSeq++;
    this.drafts.cancel();
    this.queue.clear();
    for (const item of this.items) this.discard(item);
    this.items = [];
    clear(this.list);
    this.refreshSend();
  }

  addFiles(files: PickedFile[]): void {
    for (const { file } of files) {
      const item: Pending = {
        id: this.nextId++,
        file,
        status: 'queued',
        loaded: 0,
        total: file.size,
        el: h('li'),
        progress: new ProgressView('attachment-bytes', 'chip-bytes'),
      };
      if (file.type.startsWith('image/')) item.thumbUrl = URL.createObjectURL(file);
      const tooBig = sizeCheck(file.name, file.size, this.deps.maxUploadBytes(), formatBytes);
      if (tooBig) {
        item.status = 'error';
        item.error = tooBig;
      }
      this.items.push(item);
      this.list.appendChild(item.el);
      this.update(item);
      if (item.status === 'queued') this.queue.add(item);
    }
    this.refreshSend();
  }

  private async upload(item: Pending): Promise<void> {
    item.status = 'uploading';
    this.update(item);
    try {
      const sessionId = await this.deps.ensureSession();
      if (!this.items.includes(item)) return; // cancelled while the session was being created
      item.handle = uploadMultipart<Attachment>('/api/upload', { session_id: sessionId }, [{ field: 'file', filename: item.file.name, blob: item.file }], (p) => {
        item.loaded = p.loaded;
        this.updateProgress(item);
      });
      item.result = await item.handle.promise;
      item.status = 'done';
      item.loaded = item.total;
      this.drafts.schedule();
    } catch (err) {
      if (err instanceof UploadAborted) return; // the chip is already gone
      item.status = 'error';
      item.error = err instanceof Error ? err.message : String(err);
    } finally {
      item.handle = undefined;
      if (this.items.includes(item)) this.update(item);
      this.refreshSend();
    }
  }

  private async extract(item: Pending): Promise<void> {
    // A restored or Edit-restored chip's bytes are on the server only: it extracts the stored file instead of uploading.
    const stored = (item.restored || item.carried) && item.result && 'filename' in item.result ? item.result : undefined;
    const state: ExtractState = { status: 'running', loaded: 0, total: item.file.size, stored: Boolean(stored) };
    item.extract = state;
    this.update(item);
    try {
      const sessionId = await this.deps.ensureSession();
      state.handle = stored
        ? extractStored(sessionId, stored.path)
        : uploadMultipart<ExtractResult>('/api/upload/extract', { session_id: sessionId }, [{ field: 'file', filename: item.file.name, blob: item.file }], (p) => {
            state.loaded = p.loaded;
            this.updateProgress(item);
          });
      state.result = await state.handle.promise;
      state.status = 'done';
      this.drafts.schedule();
    } catch (err) {
      if (err instanceof UploadAborted) {
        item.extract = undefined;
      } else {
        state.status = 'error';
        state.error = err instanceof Error ? err.message : String(err);
      }
    } finally {
      state.handle = undefined;
      if (this.items.includes(item)) this.update(item);
    }
  }

  private cancel(item: Pending): void {
    this.queue.remove(item);
    this.discard(item);
    this.items = this.items.filter((i) => i !== item);
    item.el.remove();
    this.refreshSend();
    this.input.focus();
    // A stored upload of this draft goes from the disk too (the server refuses one a sent message refers to;
    // a chip brought back by Edit is such a one, so it is not asked).
    const stored = item.status === 'done' && item.result && 'filename' in item.result && !item.carried ? item.result : undefined;
    if (stored && this.owner) {
      draftApi.deleteAttachment(this.owner, stored.path).then(
        () => this.drafts.schedule(),
        (err: unknown) => notify(err instanceof Error ? err.message : String(err), 'error'),
      );
    } else this.drafts.schedule();
  }

  private discard(item: Pending): void {
    item.handle?.abort();
    item.extract?.handle?.abort();
    if (item.thumbUrl?.startsWith('blob:')) URL.revokeObjectURL(item.thumbUrl);
  }

  private updateProgress(item: Pending): void {
    const extracting = item.extract?.status === 'running' && !item.extract.stored;
    const loaded = extracting ? item.extract?.loaded ?? 0 : item.loaded;
    const total = extracting ? item.extract?.total ?? 0 : item.total;
    item.progress.update(`${extracting ? 'Extracting' : 'Uploading'} ${item.file.name}`, loaded, total);
  }

  /** The chip from the item's state; the progress bar and counter are the item's own, reused. */
  private update(item: Pending): void {
    const { el, file } = item;
    clear(el);
    el.className = `chip chip-${item.status}`;
    el.dataset.testid = 'attachment-chip';
    el.dataset.status = item.status;
    el.dataset.filename = file.name;
    const thumb = item.thumbUrl
      ? h('img', { class: 'chip-thumb', src: item.thumbUrl, alt: '', 'data-testid': 'attachment-thumb' })
      : h('span', { class: 'chip-thumb chip-icon' }, icon([...(isArchiveName(file.name) ? ICONS.archive : ICONS.file)]));
    const storedExtract = item.extract?.status === 'running' && item.extract.stored;
    const showBar = item.status === 'uploading' || item.status === 'queued' || (item.extract?.status === 'running' && !storedExtract);
    const main = h(
      'div',
      { class: 'chip-main' },
      h('span', { class: 'chip-name', title: file.name }, file.name),
      showBar ? item.progress.bar : null,
      item.status === 'error' ? null : item.progress.bytes,
      item.status === 'queued' ? h('span', { class: 'muted small' }, 'Waiting…') : null,
      storedExtract ? h('span', { class: 'muted small', role: 'status', 'data-testid': 'extract-running' }, 'Extracting…') : null,
      item.status === 'done' && !item.extract ? h('span', { class: 'chip-state', 'data-testid': 'attachment-done' }, 'Attached') : null,
      item.error ? h('span', { class: 'error-text', 'data-testid': 'attachment-error', role: 'alert' }, item.error) : null,
      this.renderExtract(item),
    );
    const actions = h('div', { class: 'chip-actions' });
    // Only an upload extracts (a sent message's extraction reference has its archive's name but no file).
    const upload = item.result === undefined || 'filename' in item.result;
    if (item.status === 'done' && isArchiveName(file.name) && !item.extract && upload) {
      actions.appendChild(
        h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'attachment-extract', onclick: () => void this.extract(item) }, 'Extract'),
      );
    }
    const busy = item.status === 'uploading' || item.extract?.status === 'running';
    actions.appendChild(
      h(
        'button',
        {
          class: 'icon-btn',
          type: 'button',
          'data-testid': 'attachment-cancel',
          'aria-label': busy ? `Cancel upload of ${file.name}` : `Remove ${file.name}`,
          title: busy ? 'Cancel upload' : 'Remove',
          onclick: () => {
            if (item.extract?.status === 'running') item.extract.handle?.abort();
            else this.cancel(item);
          },
        },
        icon([...ICONS.x]),
      ),
    );
    el.append(thumb, main, actions);
    this.updateProgress(item);
  }

  private renderExtract(item: Pending): HTMLElement | null {
    const x = item.extract;
    if (!x || x.status === 'running') return null;
    if (x.status === 'error') return h('span', { class: 'error-text', 'data-testid': 'extract-error', role: 'alert' }, x.error ?? 'Extraction failed');
    const r = x.result;
    if (!r) return null;
    return withSkipped(extractedList(r.extracted, r.files, '', true, r.dest), r.skipped, '');
  }

  private busy(): boolean {
    return this.items.some((i) => i.status === 'uploading' || i.status === 'queued' || i.extract?.status === 'running');
  }

  private refreshSend(): void {
    const busy = this.busy();
    const empty = !this.input.value.trim() && !this.items.some((i) => i.status === 'done');
    this.send.disabled = this.sending || this.turnRunning || busy || empty;
    this.send.title = busy ? 'Waiting for uploads to finish' : empty ? 'Write a message or attach a file' : 'Send (Enter)';
  }

  private async submit(): Promise<void> {
    this.refreshSend();
    if (this.send.disabled) return;
    const text = this.input.value.trim();
    const attachments = this.items.filter((i) => i.status === 'done' && i.result).flatMap((i) => sentAttachments(i));
    this.sending = true;
    this.refreshSend();
    try {
      const sessionId = await this.deps.ensureSession();
      if (this.deps.agentReady()) {
        await this.deps.startTurn(sessionId, text, attachments);
        this.sent(sessionId);
      } else {
        // No agent: the message is kept in the session (as before conversations existed); the notice says
        // nobody answers.
        const { session } = await api.sendMessage(sessionId, text, attachments);
        this.sent(sessionId);
        this.deps.onSent(session);
      }
    } catch (err) {
      if (err instanceof ApiError && err.status === 503) this.setAgentReady(false);
      const hint = err instanceof ApiError && typeof err.details.hint === 'string' ? ` ${err.details.hint}` : '';
      notify(err instanceof ApiError ? `${err.message}${hint}` : `Could not send: ${String(err)}`, 'error');
    } finally {
      this.sending = false;
      this.refreshSend();
    }
  }

  /** Sent: the composer empties, and so does the session's stored draft. */
  private sent(sessionId: string): void {
    this.input.value = '';
    this.autosize();
    this.reset();
    void this.drafts.save(sessionId, { text: '', attachments: [] });
  }

  private autosize(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight, MAX_INPUT_HEIGHT_PX)}px`;
    this.refreshSend();
  }

  private onPaste(e: ClipboardEvent): void {
    const dt = e.clipboardData;
    if (!dt) return;
    const files = Array.from(dt.files ?? []);
    if (files.length === 0) return;
    // Screenshots paste as "image.png": give each a distinct, dated name so several don't collide.
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    const named = files.map((f, i) =>
      /^image\.\w+$/.test(f.name) ? new File([f], `pasted-${stamp}${files.length > 1 ? `-${i + 1}` : ''}.${f.name.split('.').pop()}`, { type: f.type }) : f,
    );
    if (!dt.types.includes('text/plain')) e.preventDefault();
    this.addFiles(fromFileList(named));
  }
}

/** What a chip sends: its upload, and for an extracted archive also the extraction with its file count. */
function sentAttachments(item: Pending): ChatAttachment[] {
  const out = item.result ? [item.result] : [];
  const x = item.extract?.status === 'done' ? item.extract.result : undefined;
  if (x) out.push(item.extract?.sent ?? { name: item.file.name, path: x.dest, extracted: true, files: x.extracted });
  return out;
}
