// The quick-capture window (renderer/capture.html, served at /capture): the desktop shell opens it always on top
// with a global shortcut. Text, pasted or dropped files and images (the composer's upload queue and chips, so
// limits and chip summaries are the same), dictation (the composer's Voice), and a destination: the current
// conversation, the Inbox, or a new conversation asking the agent. Esc closes it; the draft (text, staged
// uploads, destination) is kept on the server (PUT /api/capture/draft) and comes back when it opens again.
import { api, ApiError, type Capability, type CaptureDestination } from './api.js';
import { ChipsView, pickedChip, uploadChipFile, type PickedUpload } from './composer-chips.js';
import { pastedFiles } from './composer-paste.js';
import { PasteOffer } from './composer-paste-offer.js';
import { ScreenshotError, takeScreenshot } from './capture-screenshot.js';
import { DRAFT_SAVE_DEBOUNCE_MS, draftApi } from './draft-sync.js';
import { byId, icon, ICONS } from './dom.js';
import { fromFileList, type PickedFile } from './files.js';
import {
  afterAsk,
  afterSend,
  draftBody,
  EMPTY_CAPTURE,
  insertDictation,
  sendBlocker,
  sendBody,
  stateFromServer,
  type CaptureState,
} from './capture-state.js';
import type { Chip } from './store.js';
import { UploadQueue } from './upload-queue.js';
import { dropZone } from './upload-view.js';
import { clipboardRefusal, pttStep, pttThen, type PttEffect, type PttEvent, type PttState } from './ptt-flow.js';
import { Voice, type VoiceEvent } from './voice.js';

/** Parallel uploads from the capture window: as many as one composer's (composer.ts MAX_PARALLEL_UPLOADS). */
export const CAPTURE_PARALLEL_UPLOADS = 3;
/** Held down, this key records until it is released (push to talk); the page's hint names it. */
export const PUSH_TO_TALK_KEY = 'F8';
/** What the page tells the desktop shell (its preload listens on window): close the window / a capture went. */
export const CLOSE_EVENT = 'satchel:capture-close';
export const SENT_EVENT = 'satchel:capture-sent';
/** With Ctrl (⌘ on macOS) and Shift, this key takes a screenshot; the page's hint names it. */
export const SCREENSHOT_KEY = 'S';
/** How long a window that asked to close may take before the page says it is still open. */
const CLOSE_FALLBACK_MS = 500;

class CapturePage {
  private state: CaptureState = EMPTY_CAPTURE;
  private readonly root = byId('app');
  private readonly form = byId<HTMLFormElement>('capture-form');
  private readonly input = byId<HTMLTextAreaElement>('capture-input');
  private readonly send = byId<HTMLButtonElement>('send-button');
  private readonly notice = byId('capture-notice');
  private readonly currentLabel = byId('destination-current-label');
  private readonly inboxLabel = byId('destination-inbox-label');
  private readonly askIn = byId<HTMLSelectElement>('ask-in');
  private readonly askInCurrent = byId<HTMLOptionElement>('ask-in-current');
  private readonly radios = Array.from(this.form.querySelectorAll<HTMLInputElement>('input[name="destination"]'));
  private readonly chips = new ChipsView(byId<HTMLUListElement>('attachments'), {
    cancel: (id) => this.remove(id),
    session: () => this.state.staging ?? undefined,
  });
  /** The picked files' bytes, until their upload stores them. */
  private readonly files = new Map<number, PickedUpload>();
  private readonly queue = new UploadQueue<number>(CAPTURE_PARALLEL_UPLOADS, (id) => this.upload(id));
  private readonly voice: Voice;
  private maxUploadBytes: number | undefined;
  private lastId = 0;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** The staging conversation being made for the first upload (one for all the files dropped at once). */
  private staging: Promise<string> | undefined;
  /** Push-to-talk's destination (the shell's `&then=`) and how far its dictation got (ptt-flow.ts). */
  private ptt: PttState = { then: pttThen(location.search), phase: 'off' };
  /** A screenshot is being taken (its picker or region overlay is open). */
  private shooting = false;
  private readonly pasteOffer: PasteOffer;

  constructor() {
    byId('capture-close').appendChild(icon([...ICONS.x]));
    const attach = byId<HTMLButtonElement>('attach-button');
    attach.appendChild(icon([...ICONS.paperclip]));
    const picker = byId<HTMLInputElement>('file-input');
    attach.addEventListener('click', () => picker.click());
    picker.addEventListener('change', () => {
      this.addFiles(fromFileList(picker.files ?? []));
      picker.value = '';
    });
    this.voice = new Voice(
      (spoken) => this.pttFeed({ type: 'transcript', text: spoken }),
      (event) => this.pttFeed(voiceToPtt(event)),
    );
    this.input.addEventListener('input', () => {
      this.set({ text: this.input.value });
      this.scheduleSave();
    });
    // A long paste is offered as a file under the box, as in the composer (composer-paste-offer.ts, issue 38).
    this.pasteOffer = new PasteOffer(this.input, (files) => this.addFiles(files));
    this.input.after(this.pasteOffer.el);
    this.input.addEventListener('paste', (e) => {
      this.addFiles(pastedFiles(e));
      this.pasteOffer.pasted(e);
    });
    dropZone(this.root, { hoverClass: 'dragging', onFiles: (files) => this.addFiles(files) });
    for (const r of this.radios) {
      r.addEventListener('change', () => {
        if (!r.checked) return;
        this.set({ destination: r.value as CaptureDestination, notice: null });
        this.scheduleSave();
      });
    }
    // Choosing where to ask chooses Ask too.
    this.askIn.addEventListener('change', () => {
      this.set({ askIn: this.askIn.value === 'current' ? 'current' : 'new', destination: 'ask', notice: null });
      this.scheduleSave();
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
    byId('capture-close').addEventListener('click', () => void this.close());
    document.addEventListener('keydown', (e) => {
      if (e.key === PUSH_TO_TALK_KEY) {
        e.preventDefault();
        if (!e.repeat) this.voice.holdStart();
      } else if (e.key === 'Escape' && !this.voice.busy && !e.defaultPrevented) {
        // While the microphone is open, Esc cancels the recording (voice.ts), not the window.
        e.preventDefault();
        void this.close();
      }
    }, { capture: true }); // before voice.ts's own Esc, which may end the recording and make it look idle
    document.addEventListener('keyup', (e) => {
      if (e.key === PUSH_TO_TALK_KEY) this.voice.holdEnd();
    });
    window.addEventListener('pagehide', () => this.flush(true));
    this.setupScreenshot();
  }

  /** The Screenshot button and its shortcut (Ctrl+Shift+S, ⌘⇧S on macOS), named in the page's hint. */
  private setupScreenshot(): void {
    const button = byId<HTMLButtonElement>('screenshot-button');
    button.appendChild(icon([...SCREENSHOT_ICON]));
    button.addEventListener('click', () => void this.screenshot());
    const mac = /Mac/.test(navigator.platform);
    const keys = mac ? '⌘⇧S' : 'Ctrl+Shift+S';
    button.title = `Screenshot (${keys})`;
    byId('screenshot-hint').textContent = `${keys} screenshot`;
    document.addEventListener('keydown', (e) => {
      if (e.key.toUpperCase() === SCREENSHOT_KEY && e.shiftKey && !e.altKey && (mac ? e.metaKey : e.ctrlKey)) {
        e.preventDefault();
        void this.screenshot();
      }
    });
  }

  /** Take a screenshot and add it like a pasted image (the same queue, limits and chip); a refusal is a notice. */
  private async screenshot(): Promise<void> {
    if (this.shooting || this.state.sending) return;
    this.shooting = true;
    this.set({ notice: null });
    try {
      const file = await takeScreenshot();
      if (file) this.addFiles([{ file, relativePath: file.name }]);
    } catch (err) {
      const text = err instanceof ScreenshotError ? err.message : 'The screenshot could not be taken.';
      this.set({ notice: { kind: 'error', text } });
    } finally {
      this.shooting = false;
      this.input.focus();
    }
  }

  async load(): Promise<void> {
    const asked = new URLSearchParams(location.search).get('session');
    let view;
    try {
      view = await api.capture(asked);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        byId('auth-required').hidden = false;
        return;
      }
      throw err;
    }
    this.state = stateFromServer(view, () => ++this.lastId);
    this.input.value = this.state.text;
    this.render();
    this.root.hidden = false;
    this.input.focus();
    this.input.setSelectionRange(this.input.value.length, this.input.value.length);
    const [config, cap] = await Promise.all([api.config().catch(() => null), api.capability().catch((): Capability | null => null)]);
    this.maxUploadBytes = config?.max_upload_bytes;
    this.voice.setCapability(cap);
    this.root.dataset.ready = 'true';
    // The desktop shell opens the page with ?dictate=1 (the tray's Dictate, push-to-talk while it was closed), and
    // while it is open changes only the fragment to #ptt=<n> on each press (main/desktop-shell.ts): a global
    // shortcut has no key-up, so each press starts the microphone or stops and transcribes.
    if (new URLSearchParams(location.search).get('dictate') === '1') this.pttPress();
    window.addEventListener('hashchange', () => {
      if (/^#ptt=\d+$/.test(location.hash)) this.pttPress();
    });
  }

  /** Dictated text into the field at the caret (quick capture's dictation, or push-to-talk's that failed). */
  private insertSpoken(spoken: string): void {
    const at = insertDictation(this.input.value, this.input.selectionStart ?? this.input.value.length, spoken);
    this.set({ text: at.text });
    this.input.setSelectionRange(at.caret, at.caret);
    this.input.focus();
    this.scheduleSave();
  }

  /** The global push-to-talk shortcut was pressed: each press starts or stops the microphone. */
  private pttPress(): void {
    this.pttFeed({ type: 'press' });
    this.voice.toggle();
  }

  /** Push-to-talk's decision (ptt-flow.ts) for what just happened, carried out. */
  private pttFeed(event: PttEvent): void {
    const step = pttStep(this.ptt, event);
    this.ptt = step.state;
    this.root.dataset.ptt = step.state.phase;
    for (const effect of step.effects) this.pttEffect(effect);
  }

  private pttEffect(effect: PttEffect): void {
    switch (effect.kind) {
      case 'insert':
        return this.insertSpoken(effect.text);
      case 'notice':
        return this.set({ notice: { kind: effect.level, text: effect.text } });
      case 'copy':
        return void this.pttCopy(effect.text);
      case 'send':
        return void this.pttSend(effect.text);
      case 'close':
        setTimeout(() => void this.close(), effect.afterMs);
        return;
    }
  }

  /** The transcript onto the clipboard; refused, the machine puts it in the field instead. */
  private async pttCopy(text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      this.pttFeed({ type: 'copied' });
    } catch (err) {
      this.pttFeed({ type: 'copy-refused', text, reason: clipboardRefusal(err) });
    }
  }

  /**
   * The transcript alone as a message the agent answers: in the current conversation (a turn there), or, with
   * none yet, a new one asking the agent. The field's draft is not part of it and is kept.
   */
  private async pttSend(text: string): Promise<void> {
    const current = this.state.current;
    try {
      const body = current ? { destination: 'current' as const, session_id: current.session_id, text, attachments: [], reply: true } : { destination: 'ask' as const, text, attachments: [] };
      const sent = await api.sendCapture(body);
      // Sending clears the kept draft on the server; this message was not the draft, so it is written back.
      await this.flush();
      window.dispatchEvent(new CustomEvent(SENT_EVENT, { detail: { destination: sent.destination, session_id: sent.session_id } }));
      this.pttFeed({ type: 'sent', title: current?.title ?? null });
    } catch (err) {
      this.pttFeed({ type: 'send-failed', text, reason: err instanceof Error ? err.message : String(err) });
    }
  }

  private set(change: Partial<CaptureState>): void {
    this.state = { ...this.state, ...change };
    this.render();
  }

  private setChip(id: number, change: (c: Chip) => Chip): void {
    this.set({ chips: this.state.chips.map((c) => (c.id === id ? change(c) : c)) });
  }

  /** The one place the page is drawn from its state. */
  private render(): void {
    const s = this.state;
    if (this.input.value !== s.text) this.input.value = s.text;
    // The box set from the state (sent, a draft read back) fires no input event: the offer checks it here.
    this.pasteOffer.check();
    this.chips.update(s.chips);
    this.currentLabel.textContent = s.current
      ? `Current conversation: ${s.current.title}${s.current.busy ? ' (a reply is being written: your note comes after it)' : ''}`
      : 'Current conversation (none yet)';
    // The label is cut to one line in the small window (capture.css): its whole text on hover.
    this.currentLabel.title = this.currentLabel.textContent;
    this.inboxLabel.textContent = s.inbox ? 'Inbox' : 'Inbox (not available)';
    for (const r of this.radios) {
      r.checked = r.value === s.destination;
      r.disabled = (r.value === 'current' && !s.current) || (r.value === 'inbox' && !s.inbox);
    }
    this.askInCurrent.disabled = !s.current;
    this.askInCurrent.textContent = s.current ? `in “${s.current.title}”` : 'in the current conversation (none yet)';
    this.askIn.value = s.askIn === 'current' && s.current ? 'current' : 'new';
    this.askIn.title = this.askIn.selectedOptions[0]?.textContent ?? '';
    const blocker = sendBlocker(s);
    this.send.disabled = blocker !== null;
    this.send.title = blocker ?? 'Send (Enter)';
    this.notice.textContent = s.notice?.text ?? '';
    this.notice.dataset.kind = s.notice?.kind ?? '';
  }

  private addFiles(files: PickedFile[]): void {
    if (files.length === 0) return;
    const added: Chip[] = files.map(({ file }) => {
      const id = ++this.lastId;
      this.files.set(id, { file });
      return pickedChip(id, file, this.maxUploadBytes);
    });
    this.set({ chips: [...this.state.chips, ...added], notice: null });
    for (const chip of added) if (chip.status === 'queued') this.queue.add(chip.id);
  }

  /** The conversation uploads are stored in: the draft's, else the current one, else a new one made now. */
  private stagingSession(): Promise<string> {
    const known = this.state.staging ?? this.state.current?.session_id;
    if (known) {
      if (!this.state.staging) this.set({ staging: known });
      return Promise.resolve(known);
    }
    this.staging ??= api.newSession().then(({ session }) => {
      this.set({ staging: session.session_id, current: { session_id: session.session_id, title: session.title } });
      return session.session_id;
    });
    return this.staging;
  }

  private held(id: number): boolean {
    return this.state.chips.some((c) => c.id === id);
  }

  private async upload(id: number): Promise<void> {
    const up = this.files.get(id);
    if (!up || !this.held(id)) return;
    await uploadChipFile(id, up, {
      session: () => this.stagingSession(),
      held: (i) => this.held(i),
      setChip: (i, change) => this.setChip(i, change),
      stored: () => this.scheduleSave(),
    });
    this.files.delete(id);
  }

  /** A chip taken off: its upload stops, or its stored file goes (it was never sent). */
  private remove(id: number): void {
    const chip = this.state.chips.find((c) => c.id === id);
    if (!chip) return;
    this.queue.remove(id);
    this.files.get(id)?.handle?.abort();
    this.files.delete(id);
    if (chip.thumbUrl?.startsWith('blob:')) URL.revokeObjectURL(chip.thumbUrl);
    this.set({ chips: this.state.chips.filter((c) => c.id !== id) });
    const stored = chip.status === 'done' && chip.result && 'filename' in chip.result ? chip.result.path : undefined;
    if (stored && this.state.staging) void draftApi.deleteAttachment(this.state.staging, stored).catch(() => undefined);
    this.scheduleSave();
    this.input.focus();
  }

  private scheduleSave(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => void this.flush(), DRAFT_SAVE_DEBOUNCE_MS);
  }

  /** Save the draft now (the window is closing, or the debounce ran out). */
  private flush(keepalive = false): Promise<void> {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const body = draftBody(this.state);
    if (keepalive) {
      // The page is going: a keepalive request outlives it.
      void fetch('/api/capture/draft', { method: 'PUT', credentials: 'same-origin', keepalive: true, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).catch(
        () => undefined,
      );
      return Promise.resolve();
    }
    return api.saveCaptureDraft(body).then(
      () => undefined,
      () => undefined, // not saved (the server is gone): the next change tries again
    );
  }

  private async submit(): Promise<void> {
    if (sendBlocker(this.state) !== null) return;
    clearTimeout(this.saveTimer);
    this.set({ sending: true, notice: null });
    try {
      const sent = await api.sendCapture(sendBody(this.state));
      for (const c of this.state.chips) if (c.thumbUrl?.startsWith('blob:')) URL.revokeObjectURL(c.thumbUrl);
      const asked = this.state.destination === 'ask';
      this.state = afterSend(this.state, sent.queued === true);
      this.staging = undefined;
      this.render();
      if (asked) await this.nameAsked(sent.session_id);
      window.dispatchEvent(new CustomEvent(SENT_EVENT, { detail: { destination: sent.destination, session_id: sent.session_id } }));
    } catch (err) {
      this.set({ sending: false, notice: { kind: 'error', text: err instanceof Error ? err.message : String(err) } });
      this.scheduleSave();
    }
    this.input.focus();
  }

  /** The conversation just asked is the current one now: the page names it (its title as the server has it). */
  private async nameAsked(sessionId: string): Promise<void> {
    try {
      const view = await api.capture(sessionId);
      if (view.current?.session_id === sessionId) this.set(afterAsk(this.state, view.current));
    } catch {
      // Not read (the server is away): the next open of the window reads it
    }
  }

  /** Esc or the close button: keep the draft, then ask the shell (or the browser) to close the window. */
  private async close(): Promise<void> {
    await this.flush();
    window.dispatchEvent(new CustomEvent(CLOSE_EVENT));
    window.close();
    // Still here: a browser tab the page did not open itself cannot be closed by it.
    setTimeout(() => this.set({ notice: { kind: 'info', text: 'The draft is kept. Close this tab when you like.' } }), CLOSE_FALLBACK_MS);
  }
}

/** The microphone's news in push-to-talk's terms. */
function voiceToPtt(event: VoiceEvent): PttEvent {
  return event === 'failed' ? { type: 'voice-failed' } : { type: event };
}
/** A dashed frame with corner marks: the Screenshot button's icon. */
const SCREENSHOT_ICON = ['M4 8V5a1 1 0 0 1 1-1h3', 'M16 4h3a1 1 0 0 1 1 1v3', 'M20 16v3a1 1 0 0 1-1 1h-3', 'M8 20H5a1 1 0 0 1-1-1v-3', 'M9 9h6v6H9z'];

const page = new CapturePage();
void page.load();
