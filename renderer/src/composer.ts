// The message composer: text, attachment chips with byte-accurate progress and cancel, archive extraction,
// paste and drag-and-drop of files and folders, and Send. What it holds is the store's draft: the draft of one
// session, kept on the server (draft-sync.ts) so a reload or a restart brings it back. The textarea is written
// from the draft when the draft changes elsewhere (loaded, Edit, sent), never read back as the state.
import { api, ApiError, type NewVersion, type MessageSummaryAnswer, type SentAttachment, type Session } from './api.js';
import { carriedChips, draftContent, restoredChips } from './composer-draft.js';
import { ChipsView, pickedChip, sentAttachments, storedUpload, uploadChipFile, type PickedUpload } from './composer-chips.js';
import { ChipExtractions } from './composer-extract.js';
import { pastedFiles } from './composer-paste.js';
import { PasteOffer } from './composer-paste-offer.js';
import { byId, icon, ICONS } from './dom.js';
import { DraftSaver, draftApi } from './draft-sync.js';
import { fromFileList, type PickedFile } from './files.js';
import { notify } from './toast.js';
import { turnRunning, withChip, type AppState, type Chip, type Draft, type Store } from './store.js';
import { UploadQueue } from './upload-queue.js';
import { NOT_SENT_UPLOAD_FAILED, queuedSendStep, queuedSendText } from './send-when-ready.js';
import { dropZone } from './upload-view.js';

/** Parallel uploads from one composer: enough to keep a loopback link busy without starving the UI. */
export const MAX_PARALLEL_UPLOADS = 3;
/** Textarea growth limit before it scrolls. */
const MAX_INPUT_HEIGHT_PX = 220;

export interface ComposerDeps {
  /** The current session id, creating a session first when there is none. */
  ensureSession(): Promise<string>;
  maxUploadBytes(): number | undefined;
  /** A message kept without an agent: the server's answer (the summary and the stored row). */
  onSent(answer: MessageSummaryAnswer): void;
  /** Start a turn; rejects with the server's error. */
  startTurn(sessionId: string, text: string, attachments: SentAttachment[], opts?: NewVersion): Promise<void>;
  /** Stop the running turn. */
  stop(): void;
}


export class Composer {
  private readonly input = byId<HTMLTextAreaElement>('composer-input');
  private readonly send = byId<HTMLButtonElement>('send-button');
  private readonly stopButton = byId<HTMLButtonElement>('stop-button');
  private readonly notice = byId('agent-notice');
  private readonly form = byId<HTMLFormElement>('composer');
  private readonly fileInput = byId<HTMLInputElement>('file-input');
  private readonly chips: ChipsView;
  private readonly uploads = new Map<number, PickedUpload>();
  private readonly extractions: ChipExtractions;
  private readonly queue = new UploadQueue<number>(MAX_PARALLEL_UPLOADS, (id) => this.upload(id));
  private nextId = 1;
  private readonly newId = () => this.nextId++;
  private sending = false;
  /** Enter was pressed while files uploaded: the message goes when they are stored (send-when-ready.ts). */
  private sendQueued = false;
  private readonly queuedLine = byId('send-queued');
  /** Only the latest draft load may fill the composer. */
  private loadSeq = 0;
  private readonly drafts = new DraftSaver(() => {
    // While a sent message is being edited, the session's draft is what the composer held before (kept aside).
    const editing = this.store.state.editing;
    const draft = editing ? { ...this.draft, ...editing.saved } : this.draft;
    return draft.owner ? { sessionId: draft.owner, content: draftContent(draft) } : null;
  });
  private readonly editBanner = byId('edit-banner');
  private pasteOffer: PasteOffer | null = null;

  constructor(
    private readonly store: Store<AppState>,
    private readonly deps: ComposerDeps,
  ) {
    this.chips = new ChipsView(byId<HTMLUListElement>('attachments'), {
      extract: (id) => void this.extractions.extract(id),
      cancel: (id) => (this.extractions.isRunning(id) ? this.extractions.abort(id) : this.remove(id)),
      session: () => this.draft.owner ?? undefined,
    });
    this.extractions = new ChipExtractions(store, () => this.drafts.schedule());
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
      } else if (e.key === 'Escape' && this.sendQueued) {
        e.preventDefault();
        this.setQueued(false);
      } else if (e.key === 'Escape' && this.store.state.editing) {
        e.preventDefault();
        this.cancelEdit();
      }
    });
    byId('edit-cancel').addEventListener('click', () => this.cancelEdit());
    byId('send-queued-cancel').addEventListener('click', () => {
      this.setQueued(false);
      this.input.focus();
    });
    this.input.addEventListener('input', () => {
      this.setDraftFields({ text: this.input.value });
      this.drafts.schedule();
    });
    this.stopButton.addEventListener('click', () => this.deps.stop());
    // A long paste is offered as a file under the box (composer-paste-offer.ts).
    const offer = new PasteOffer(this.input, (files) => this.addFiles(files));
    this.form.querySelector('.composer-row')?.after(offer.el);
    this.pasteOffer = offer;
    this.input.addEventListener('paste', (e) => {
      this.addFiles(pastedFiles(e));
      offer.pasted(e);
    });
    dropZone(this.form.closest('main') ?? this.form, { hoverClass: 'dragging', onFiles: (files) => this.addFiles(files) });
    store.subscribe((state, previous) => this.update(state, previous));
    this.update(store.state, null);
  }

  private get draft(): Draft {
    return this.store.state.draft;
  }

  private setDraftFields(change: Partial<Draft>): void {
    this.store.update((s) => ({ draft: { ...s.draft, ...change } }));
  }

  private setChip(id: number, change: (chip: Chip) => Chip): void {
    this.store.update((s) => ({ draft: withChip(s.draft, id, change) }));
  }

  update(state: AppState, previous: AppState | null): void {
    const { draft } = state;
    if (draft.text !== this.input.value) {
      this.input.value = draft.text;
      this.autosize();
      this.pasteOffer?.check();
    }
    if (draft.chips !== previous?.draft.chips) this.chips.update(draft.chips);
    const editing = state.editing !== null;
    this.editBanner.hidden = !editing;
    this.send.textContent = editing ? 'Send as new version' : 'Send';
    const running = turnRunning(state);
    this.stopButton.hidden = !running;
    this.send.hidden = running;
    this.notice.hidden = state.agentReady;
    this.refreshSend(state);
    if (this.sendQueued && draft.chips !== previous?.draft.chips) this.queuedStep(draft.chips);
  }

  /** A queued send, as the chips now stand: still waiting (its line says for what), gone, or given up. */
  private queuedStep(chips: readonly Chip[]): void {
    const step = queuedSendStep(chips);
    if (step === 'wait') {
      byId('send-queued-text').textContent = queuedSendText(chips);
      return;
    }
    this.setQueued(false);
    if (step === 'failed') notify(NOT_SENT_UPLOAD_FAILED, 'error');
    // After this round of the store's subscribers: submit reads the state they leave.
    else queueMicrotask(() => void this.submit());
  }

  private setQueued(queued: boolean): void {
    this.sendQueued = queued;
    this.queuedLine.hidden = !queued;
    if (queued) this.queuedStep(this.draft.chips);
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
    this.setDraftFields({ text: el.value });
    this.drafts.schedule();
  }

  /** Send what the composer holds, as the Send button would (hold to talk, release to send). */
  submitNow(): void {
    void this.submit();
  }

  /**
   * The composer now belongs to session `id`. `keep`: what it holds already belongs to that session (files
   * dropped while it was being created), so it stays and is saved as its draft. Otherwise the draft of the
   * session left is saved, and the new session's stored draft fills the composer.
   */
  bindSession(id: string | null, keep = false): void {
    if (id === this.draft.owner) return;
    // An edit belongs to its session: leaving it gives the composer back as it was before, and that is saved.
    this.cancelEdit();
    if (keep) {
      this.setDraftFields({ owner: id });
      this.drafts.schedule();
      return;
    }
    void this.drafts.flush();
    this.empty(id);
    if (id) void this.loadDraft(id);
  }

  /** Save what the composer holds now (its session is about to be deleted: Undo brings the draft back too). */
  saveDraft(): Promise<void> {
    return this.drafts.flush();
  }

  /** Leave the current session's draft (saved first) with an empty composer that belongs to no session yet. */
  leave(): void {
    this.cancelEdit();
    void this.drafts.flush();
    this.empty(null);
  }

  private async loadDraft(id: string): Promise<void> {
    const seq = ++this.loadSeq;
    let stored;
    try {
      stored = await draftApi.load(id);
    } catch {
      return; // no draft to show; the composer stays empty
    }
    if (seq !== this.loadSeq || this.draft.owner !== id) return;
    // Typed or dropped meanwhile: that goes first, the stored draft joins it.
    const restored = restoredChips(this.newId, stored, id);
    this.setDraftFields({ text: this.draft.text || stored.text, chips: [...this.draft.chips, ...restored] });
    this.drafts.known(id, draftContent(this.draft));
  }

  /**
   * Edit: put the message at `index` of session `sessionId` back in the composer (its text, and its attachments
   * as already-stored chips), keeping what the composer held aside; Esc, Cancel or Send gives that back. Not
   * while the composer's own files are still uploading (they would have nowhere to land).
   */
  beginEdit(sessionId: string, index: number, text: string, attachments: readonly SentAttachment[]): void {
    const state = this.store.state;
    if (state.draft.owner !== sessionId) return;
    if (!state.editing && state.draft.chips.some((c) => c.status === 'uploading' || c.status === 'queued' || c.extract?.status === 'running')) {
      notify('Wait for the files in the message box to finish uploading, then edit.', 'error');
      return;
    }
    // Editing another message: the composer as it was before the first Edit is what comes back.
    const saved = state.editing?.saved ?? { text: state.draft.text, chips: state.draft.chips };
    if (state.editing) for (const chip of state.draft.chips) this.discard(chip);
    void this.drafts.flush();
    const chips = carriedChips(this.newId, attachments, sessionId);
    this.store.update((s) => ({ editing: { sessionId, index, saved }, draft: { ...s.draft, text, chips } }));
    for (const chip of chips) {
      const sent = chip.extract?.sent;
      if (sent) void this.extractions.listCarried(chip.id, sessionId, sent);
    }
    this.input.focus();
    this.input.setSelectionRange(text.length, text.length);
  }

  /** Leave the edit: the composer holds again what it held before it (nothing typed there is lost). */
  cancelEdit(): void {
    const editing = this.store.state.editing;
    if (!editing) return;
    for (const chip of this.draft.chips) this.discard(chip);
    this.store.update((s) => ({ editing: null, draft: { ...s.draft, text: editing.saved.text, chips: editing.saved.chips } }));
    this.input.focus();
  }

  /** An empty composer for `owner` (the draft it held was saved before). */
  private empty(owner: string | null): void {
    // A message queued behind uploads belongs to the draft being left.
    this.setQueued(false);
    this.forget();
    this.store.update({ draft: { owner, text: '', chips: [] } });
  }

  /** Stop every upload and extraction of the chips held, and free their thumbnails. */
  private forget(): void {
    this.loadSeq++;
    this.drafts.cancel();
    this.queue.clear();
    for (const chip of this.draft.chips) this.discard(chip);
    this.extractions.abortAll();
  }

  addFiles(files: PickedFile[]): void {
    const chips: Chip[] = files.map(({ file }) => {
      const id = this.newId();
      this.uploads.set(id, { file });
      return pickedChip(id, file, this.deps.maxUploadBytes());
    });
    if (chips.length === 0) return;
    this.setDraftFields({ chips: [...this.draft.chips, ...chips] });
    for (const chip of chips) if (chip.status === 'queued') this.queue.add(chip.id);
  }

  private held(id: number): boolean {
    return this.draft.chips.some((c) => c.id === id);
  }

  private async upload(id: number): Promise<void> {
    const up = this.uploads.get(id);
    if (!up || !this.held(id)) return;
    await uploadChipFile(id, up, {
      session: () => this.deps.ensureSession(),
      held: (i) => this.held(i),
      setChip: (i, change) => this.setChip(i, change),
      stored: () => this.drafts.schedule(),
    });
    // Stored (or failed): its bytes are no longer needed in the page.
    this.uploads.delete(id);
  }

  private remove(id: number): void {
    const chip = this.draft.chips.find((c) => c.id === id);
    if (!chip) return;
    this.queue.remove(id);
    this.discard(chip);
    this.setDraftFields({ chips: this.draft.chips.filter((c) => c.id !== id) });
    this.input.focus();
    // A stored upload of this draft goes from the disk too (the server refuses one a sent message refers to;
    // a chip brought back by Edit is such a one, so it is not asked).
    const stored = chip.origin.kind === 'carried' ? undefined : storedUpload(chip);
    const owner = this.draft.owner;
    if (stored && owner) {
      draftApi.deleteAttachment(owner, stored.path).then(
        () => this.drafts.schedule(),
        (err: unknown) => notify(err instanceof Error ? err.message : String(err), 'error'),
      );
    } else this.drafts.schedule();
  }

  private discard(chip: Chip): void {
    this.uploads.get(chip.id)?.handle?.abort();
    this.uploads.delete(chip.id);
    this.extractions.abort(chip.id);
    if (chip.thumbUrl?.startsWith('blob:')) URL.revokeObjectURL(chip.thumbUrl);
  }

  private refreshSend(state: AppState = this.store.state): void {
    const chips = state.draft.chips;
    const busy = chips.some((c) => c.status === 'uploading' || c.status === 'queued' || c.extract?.status === 'running');
    const empty = !state.draft.text.trim() && !chips.some((c) => c.status === 'done');
    this.send.disabled = this.sending || turnRunning(state) || busy || empty;
    this.send.title = busy ? 'Waiting for uploads to finish' : empty ? 'Write a message or attach a file' : 'Send (Enter)';
  }

  private async submit(): Promise<void> {
    this.refreshSend();
    // Files still uploading: the message waits for them instead of being dropped (issue 38).
    if (this.send.disabled && !this.sending && !turnRunning(this.store.state) && queuedSendStep(this.draft.chips) === 'wait') return this.setQueued(true);
    if (this.send.disabled) return;
    const text = this.draft.text.trim();
    const attachments = this.draft.chips.filter((c) => c.status === 'done' && c.result).flatMap(sentAttachments);
    this.sending = true;
    this.refreshSend();
    try {
      const sessionId = await this.deps.ensureSession();
      const editing = this.store.state.editing;
      if (editing && editing.sessionId === sessionId) {
        // A new version from the edited message on: answered by the agent, or kept as it is when there is none.
        if (this.store.state.agentReady) await this.deps.startTurn(sessionId, text, attachments, { regenerate: true, messageIndex: editing.index });
        else this.deps.onSent(await api.sendMessage(sessionId, text, attachments, editing.index));
        // Sent: the composer (and the stored draft, never changed by the edit) is as it was before Edit.
        this.cancelEdit();
      } else if (this.store.state.agentReady) {
        await this.deps.startTurn(sessionId, text, attachments);
        this.sent(sessionId);
      } else {
        // No agent: the message is kept in the session; the notice says nobody answers.
        const answer = await api.sendMessage(sessionId, text, attachments);
        this.sent(sessionId);
        this.deps.onSent(answer);
      }
    } catch (err) {
      // The server has no agent (its 503 names how to connect one; a busy or stopping server's does not).
      if (err instanceof ApiError && err.status === 503 && typeof err.details.hint === 'string') this.store.update({ agentReady: false });
      const hint = err instanceof ApiError && typeof err.details.hint === 'string' ? ` ${err.details.hint}` : '';
      notify(err instanceof ApiError ? `${err.message}${hint}` : `Could not send: ${String(err)}`, 'error');
    } finally {
      this.sending = false;
      this.refreshSend();
    }
  }

  /** Sent: the composer empties, and so does the session's stored draft. */
  private sent(sessionId: string): void {
    this.empty(this.draft.owner);
    void this.drafts.save(sessionId, { text: '', attachments: [] });
  }

  private autosize(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight, MAX_INPUT_HEIGHT_PX)}px`;
  }
}
