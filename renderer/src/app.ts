// Entry point: checks access, loads the configuration and sessions, and owns the page's one state (store.ts):
// the views subscribe to it, the controllers (chat.ts, the composer) change it, and server-sent events keep
// it current.
import { AgentSettingsDialog, holdToSend } from './agent-settings.js';
import { foldMessage } from './message-answer.js';
import { hasOlder, olderQuery, queryToHold, SESSION_PAGE_ROWS, withOlder, withTail } from './session-pages.js';
import { api, ApiError, isAuthStatus, type AgentSettings, type ServerConfig, type Session, type SessionSummary } from './api.js';
import { Chat } from './chat.js';
import { Composer } from './composer.js';
import { byId } from './dom.js';
import { initDrawers } from './drawers.js';
import { followServer } from './live-updates.js';
import { draftApi } from './draft-sync.js';
import { FreshSessions } from './fresh-session.js';
import { rememberedSession, rememberSession, sessionHash, sessionInAddress, SETTINGS_HASH } from './address.js';
import { ConnectionView } from './connection-view.js';
import { ChipContextView } from './context-chip.js';
import { ContextHeaderView } from './context-header.js';
import { ContextWarningView } from './context-warning.js';
import { SessionHeader } from './header.js';
import { ExportImport } from './export-import.js';
import { lastUserTurn, visibleRows, type MessageRow } from './message-rows.js';
import { SessionAttachmentsView } from './messages.js';
import { Sidebar } from './sessions.js';
import { initialState, Store, turnRunning, type AppState } from './store.js';
import { ThreadView } from './thread-view.js';
import { canRegenerate } from './thread-rows.js';
import { pickRegenerate, type RegenerateChoice } from './regenerate-with.js';
import { initTheme } from './theme.js';
import { ConversationSettingsView } from './conversation-settings.js';
import { Receipts } from './receipts-view.js';
import { installShortcuts, ShortcutsDialog } from './keyboard.js';
import { initReadAloud } from './read-aloud.js';
import { SettingsDialog } from './settings-dialog.js';
import { showDatabaseBanner } from './settings-backups.js';
import { notify, takeNewestAction } from './toast.js';
import { Voice } from './voice.js';
import { WorkspacePanel } from './workspace.js';

/** Pages read at most to reach a row named by search or the address: 10,000 rows at 999 a page, and one more. */
const MAX_REVEAL_PAGES = 12;

class App {
  config: ServerConfig | null = null;
  readonly store = new Store<AppState>(initialState());
  private sessions: SessionSummary[] = [];
  private creating: Promise<string> | null = null;
  readonly sidebar: Sidebar;
  readonly header: SessionHeader;
  private readonly exportImport: ExportImport;
  readonly composer: Composer;
  readonly workspace: WorkspacePanel;
  readonly voice: Voice;
  readonly chat: Chat;
  readonly agentDialog: AgentSettingsDialog;
  private readonly settings: SettingsDialog;
/** The header's model and system prompt of the conversation on screen. */
  readonly conversationSettings: ConversationSettingsView;
  private readonly receipts = new Receipts();
  readonly thread: ThreadView;
  /** A message the address named (#s=<id>&m=<index>), revealed once its conversation is on screen. */
  private revealOnOpen: { id: string; message: number } | null = null;
  /** A conversation made here and left with nothing in it is not kept (fresh-session.ts, issue 38). */
  private readonly fresh = new FreshSessions({
    read: (id) => api.sessionPage(id, 1).then((r) => r.session),
    draft: (id) => draftApi.load(id),
    remove: (id) => api.deleteSession(id).then(() => undefined),
  });
  /** Small windows: the sessions list and the workspace as drawers. */
  private readonly drawers = initDrawers();

  constructor() {
    this.sidebar = new Sidebar({
      pick: (id) => {
        this.drawers.closeAll();
        void this.open(id);
      },
      creating: (id) => void this.afterCreate(id).catch(() => undefined),
      profileChanged: () => void this.reloadAll(null),
      beforeDelete: (id) => (this.current?.session_id === id ? this.composer.saveDraft() : Promise.resolve()),
      removed: (id, next) => {
        this.sessions = this.sessions.filter((s) => s.session_id !== id);
        if (this.current?.session_id !== id) return;
        // The deleted session leaves the screen now; the one in its place in the list takes it.
        this.composer.bindSession(null);
        if (next) void this.open(next).catch(() => undefined);
        else {
          this.show(null);
          // No session left to show: the address must not name the deleted one (a reload would look for it).
          history.replaceState(null, '', location.pathname + location.search);
        }
      },
      // Undo keeps the person where they are, unless it puts back the conversation the delete took off the screen.
      restored: (id, show) => void (show ? this.reloadAll(id) : this.reloadList()).catch(() => undefined),
      openFound: (id, messageIndex) => {
        this.drawers.closeAll();
        void this.openAt(id, messageIndex).catch(notifyFailure);
      },
    });
    this.header = new SessionHeader({ renamed: (id, title) => this.applyTitle(id, title) });
    this.exportImport = new ExportImport({ imported: (id) => void this.reloadAll(id) });
    this.chat = new Chat(this.store, {
      refresh: (id) => {
        if (this.current?.session_id === id) void this.open(id).catch(() => undefined);
      },
      applyTitle: (id, title) => this.applyTitle(id, title),
    });
    this.composer = new Composer(this.store, {
      ensureSession: () => this.ensureSession(),
      maxUploadBytes: () => this.config?.max_upload_bytes,
      onSent: (answer) => {
        // Folded into the session on screen; read whole only when the copy here cannot take it.
        const folded = foldMessage(this.current, answer);
        if (folded) this.show(folded);
        else void this.open(answer.session.session_id).catch(() => undefined);
      },
      startTurn: (id, text, attachments, opts) => this.chat.start(id, text, attachments, opts),
      stop: () => void this.chat.stop().catch((err: unknown) => notify(err instanceof Error ? err.message : String(err), 'error')),
    });
    const thread = (this.thread = new ThreadView({
      regenerate: () => this.regenerate(),
      regenerateWith: () => void this.regenerateWith(),
      edit: (row) => this.edit(row),
      showVersion: (index, version) => this.showVersion(index, version),
      loadOlder: () => void this.loadOlder().catch(() => undefined),
    }));
    const attachments = new SessionAttachmentsView();
    const connection = new ConnectionView();
    // What the agent had of the documents last turn (issue 36): on the chips, over the thread, in the composer.
    const chipContext = new ChipContextView(byId('messages'));
    const contextHeader = new ContextHeaderView();
    const contextWarning = new ContextWarningView();
    this.conversationSettings = new ConversationSettingsView((session) =>
      this.store.update((s) => (s.session?.session_id === session.session_id ? { session } : {})),
    );
    this.store.subscribe((state, previous) => {
      // Before the thread: the chips it draws now read the report they show.
      chipContext.update(state);
      thread.update(state);
      contextHeader.update(state);
      contextWarning.update(state);
      // A link to a message (#s=<id>&m=<index>): shown once its conversation is.
      if (this.revealOnOpen && state.session?.session_id === this.revealOnOpen.id) {
        const { id, message } = this.revealOnOpen;
        this.revealOnOpen = null;
        void this.revealMessage(id, message).catch(() => undefined);
      }
      connection.update(state);
      this.conversationSettings.update(state);
      this.receipts.show(state.session?.session_id ?? null);
      this.fresh.noteDraft(state.draft);
      if (state.session !== previous.session) this.sessionShown(state.session, previous.session);
      attachments.update(state);
    });
    this.header.update(null);
    this.agentDialog = new AgentSettingsDialog((settings) => this.setAgent(settings));
    this.workspace = new WorkspacePanel({ maxUploadBytes: () => this.config?.max_upload_bytes });
    this.voice = new Voice((text, held) => {
      // The transcript always lands in the composer first, so what is sent is what the person sees.
      this.composer.insertAtCursor(text);
      if (held && holdToSend()) this.composer.submitNow();
    });
    initReadAloud();
    const shortcuts = new ShortcutsDialog();
    const settings = (this.settings = new SettingsDialog());
    // A damaged conversation database is said at once, over the page (settings-backups.ts).
    void showDatabaseBanner(() => settings.open());
    installShortcuts({
      'new-session': () => void this.sidebar.openNewDialog(true),
      search: () => {
        this.drawers.showSessions();
        this.sidebar.focusSearch();
      },
      'focus-composer': () => this.composer.focus(),
      stop: () => {
        if (turnRunning(this.store.state)) void this.chat.stop().catch(notifyFailure);
      },
      regenerate: () => {
        if (canRegenerate(this.store.state)) this.regenerate();
      },
      'previous-session': () => this.step(-1),
      'next-session': () => this.step(1),
      'show-shortcuts': () => shortcuts.open(),
      'open-settings': () => settings.open(),
      undo: () => void takeNewestAction(),
    });
  }

  /** Open the conversation `step` places down (or up) the list as shown. */
  private step(delta: number): void {
    const id = this.sidebar.neighbour(delta);
    if (id && id !== this.current?.session_id) void this.open(id).catch(notifyFailure);
  }

  async start(): Promise<void> {
    this.config = await api.config();
    byId('version').textContent = `v${this.config.version}`;
    byId('app').hidden = false;
    await Promise.all([
      this.sidebar.loadProfiles(),
      this.sidebar.loadWorkspaces().catch(() => undefined),
      this.agentDialog.load().then((settings) => this.setAgent(settings)),
      api.capability().then(
        (cap) => this.voice.setCapability(cap),
        () => this.voice.setCapability(null),
      ),
    ]);
    await this.reloadAll(this.initialSessionId());
    this.listen();
    window.addEventListener('hashchange', () => {
      if (this.openSettingsFromAddress()) return;
      const id = this.hashSession();
      if (id && id !== this.current?.session_id) void this.open(id);
      else if (id && this.revealOnOpen) {
        const { message } = this.revealOnOpen;
        this.revealOnOpen = null;
        void this.revealMessage(id, message).catch(() => undefined);
      }
    });
    this.composer.focus();
    this.openSettingsFromAddress();
    // Tests (and anyone scripting the UI) wait for this before acting.
    byId('app').dataset.ready = 'true';
  }

  /**
   * `#settings` (the desktop app's "Settings…" menu items load it: main/tray-menu.ts settingsUrl) opens the
   * Settings dialog, and the address goes back to the conversation's, so Back and a reload stay where they were.
   */
  private openSettingsFromAddress(): boolean {
    if (location.hash !== SETTINGS_HASH) return false;
    history.replaceState(null, '', this.current ? sessionHash(this.current.session_id) : location.pathname + location.search);
    this.settings.open();
    return true;
  }

  /** The session the address names (#s=<id>), and the message to scroll to in it (&m=<index in its messages>). */
  private hashSession(): string | null {
    const addressed = sessionInAddress(location.hash);
    if (addressed?.message !== undefined) this.revealOnOpen = { id: addressed.id, message: addressed.message };
    return addressed?.id ?? null;
  }

  private initialSessionId(): string | null {
    return this.hashSession() ?? rememberedSession();
  }

  /** Reload the session list and (re)open `preferred`, the current session, or the newest one. */
  async reloadAll(preferred: string | null): Promise<void> {
    this.sessions = (await api.sessions()).sessions;
    const want = preferred ?? this.current?.session_id ?? null;
    const id = this.sessions.find((s) => s.session_id === want)?.session_id ?? this.sessions[0]?.session_id ?? null;
    this.sidebar.setSessions(this.sessions, id);
    if (id) await this.open(id);
    else this.show(null);
  }

  private async reloadList(): Promise<void> {
    this.sessions = (await api.sessions()).sessions;
    this.sidebar.setSessions(this.sessions, this.current?.session_id ?? null);
  }

  /** Only the latest open() may show its session: a slow earlier load must not replace a newer choice. */
  private openSeq = 0;

  /** Show session `id`. `keepComposer`: what is in the composer already belongs to it (attached while it was
   *  being created), so switching to it must not clear it. */
  async open(id: string, keepComposer = false): Promise<void> {
    const seq = ++this.openSeq;
    try {
      // Its newest rows (session-pages.ts): 10,000 messages read whole were one task of ~60 ms parsing 8-10 MB.
      const { session: page } = await api.sessionPage(id, SESSION_PAGE_ROWS);
      if (seq !== this.openSeq) return;
      // The same conversation read again (a change here or in another window): the older rows held stay.
      const session = withTail(this.current, page);
      if (session.session_id !== this.current?.session_id) this.composer.bindSession(session.session_id, keepComposer);
      this.show(session);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        notify('That session no longer exists.', 'error');
        await this.reloadAll(null);
      } else throw err;
    }
  }

  /**
   * Open session `id` (a search result) with its message at `messageIndex` brought into view and marked. A
   * message not drawn (in a version not shown) leaves the conversation at its end, as any opening does.
   */
  private async openAt(id: string, messageIndex?: number): Promise<void> {
    await this.open(id);
    if (messageIndex !== undefined) await this.revealMessage(id, messageIndex);
  }

  /** The session `loadOlder` is reading older rows for: one read at a time. */
  private olderFor: Session | null = null;

  /** Rows older than those held of the session on screen, put before them (the thread keeps the reading place). */
  private async loadOlder(): Promise<void> {
    const held = this.current;
    if (!held || !hasOlder(held) || this.olderFor?.session_id === held.session_id) return;
    this.olderFor = held;
    try {
      const { before, limit } = olderQuery(held);
      const { session: page } = await api.sessionPage(held.session_id, limit, before);
      // Changed meanwhile (the tail read again, a turn stored): nothing put in; the next scroll asks again.
      const merged = withOlder(this.current, page);
      if (merged) this.show(merged);
    } finally {
      this.olderFor = null;
    }
  }

  /**
   * Bring the stored row `index` of session `id` into view and mark it, reading the rows up to it first when
   * only a later tail is held (a search hit 150 turns deep). A row not shown (another version) leaves the view.
   */
  private async revealMessage(id: string, index: number): Promise<void> {
    for (let pages = 0; pages < MAX_REVEAL_PAGES; pages++) {
      const held = this.current;
      if (held?.session_id !== id) return;
      const query = queryToHold(held, index);
      if (!query) break;
      const { session: page } = await api.sessionPage(id, query.limit, query.before);
      const merged = withOlder(this.current, page);
      if (!merged) return;
      this.show(merged);
    }
    if (this.current?.session_id === id) this.thread.reveal(index);
  }

  /** The session on screen. */
  get current(): Session | null {
    return this.store.state.session;
  }

  private setAgent(settings: AgentSettings | null): void {
    const agentReady = Boolean(settings?.base_url);
    this.store.update({ agentReady });
    // Another agent (or another key) lists other models: the header's picker reads them again.
    void this.conversationSettings.load(agentReady);
  }

  /** Regenerate asks again with the last message of the person's, as a new version of the reply. */
  private regenerate(with_: RegenerateChoice = {}): void {
    const session = this.current;
    const last = lastUserTurn(visibleRows(session?.messages ?? []));
    if (!session || !last) return;
    this.chat.start(session.session_id, last.text, last.attachments, { regenerate: true, ...with_ }).catch(notifyFailure);
  }

  /** "Regenerate with…": the same, asked of the agent and model the person picks, for that reply only. */
  private async regenerateWith(): Promise<void> {
    const session = this.current;
    if (!session) return;
    const picked = await pickRegenerate({ connection: session.connection, model: session.model });
    // The conversation on screen may have changed while the dialog was open: Regenerate is the one shown then.
    if (picked && this.current?.session_id === session.session_id && canRegenerate(this.store.state)) this.regenerate(picked);
  }

  /** Edit puts a message of the person's back in the composer; sending it makes a new version from there. */
  private edit(row: MessageRow): void {
    const session = this.current;
    if (session) this.composer.beginEdit(session.session_id, row.index, row.text, row.attachments);
  }

  private showVersion(index: number, version: number): void {
    const session = this.current;
    if (session) this.chat.showVersion(session.session_id, index, version).catch(notifyFailure);
  }

  /** Put `session` on screen (or a newer copy of the one there); every view follows the store. */
  show(session: Session | null): void {
    this.store.update({ session });
  }

  /** What follows the session on screen outside the store's views: the header, the lists, the address. */
  private sessionShown(session: Session | null, previous: Session | null): void {
    this.header.update(session);
    this.exportImport.update(session);
    this.sidebar.setActive(session?.session_id ?? null);
    if (session?.session_id !== previous?.session_id) {
      this.workspace.setSession(session);
      void this.fresh.left(previous?.session_id, session?.session_id).then((gone) => {
        if (gone) void this.reloadList().catch(() => undefined);
      });
    }
    if (!session) return;
    rememberSession(session.session_id);
    const hash = sessionHash(session.session_id);
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  /** The one place a title change lands (our rename or another window's): each view updates once. */
  private applyTitle(id: string, title: string): void {
    this.sidebar.applyTitle(id, title);
    this.store.update((s) => (s.session?.session_id === id ? { session: { ...s.session, title } } : {}));
  }

  private afterCreate(pending: Promise<string>): Promise<void> {
    // From the moment Create is pressed until the new session is on screen, a file dropped meanwhile belongs to
    // it: ensureSession waits for this instead of using the session still shown, or creating a second one
    // (whose chips the switch would then clear).
    // The draft on screen belongs to the session being left (saved as its draft); from now on the composer fills for the new one.
    this.composer.leave();
    const opening: Promise<string> = (async () => {
      const id = await pending;
      await this.reloadList();
      await this.open(id, true);
      if (this.current?.session_id === id) this.fresh.made(this.current);
      // The dialog gave focus back to "New session"; the next thing to do is write in the new session.
      this.drawers.closeAll();
      this.composer.focus();
      return id;
    })().finally(() => {
      if (this.creating === opening) this.creating = null;
    });
    this.creating = opening;
    return opening.then(() => undefined);
  }

  /**
   * The current session, or a new one in the server's default workspace when none is open (first drop). Never
   * the first trusted root: that is the home folder, which is no workspace to pick for anyone.
   */
  ensureSession(): Promise<string> {
    if (this.creating) return this.creating;
    if (this.current) return Promise.resolve(this.current.session_id);
    this.creating ??= (async () => {
      try {
        const { session } = await api.newSession();
        await this.reloadList();
        this.composer.bindSession(session.session_id, true);
        this.show(session);
        return session.session_id;
      } finally {
        this.creating = null;
      }
    })();
    return this.creating;
  }

  /** Follow other windows' and the server's changes (live-updates.ts). */
  private listen(): void {
    followServer({
      current: () => this.current,
      reloadList: () => this.reloadList(),
      open: (id) => this.open(id),
      reloadAll: (id) => this.reloadAll(id),
      applyTitle: (id, title) => this.applyTitle(id, title),
      workspaceChanged: () => this.workspace.scheduleRefresh(),
      receiptsChanged: () => this.receipts.reload(),
      mcpRead: () => this.agentDialog.mcpReadRecorded(),
      status: (connection) => this.store.update({ connection }),
    });
  }
}

function showAuthRequired(): void {
  byId('app').hidden = true;
  byId('auth-required').hidden = false;
}

// Dropping a file outside a drop zone must not navigate the window away to the file.
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => e.preventDefault());

initTheme();
const app = new App();
app.start().catch((err: unknown) => {
  if (err instanceof ApiError && isAuthStatus(err.status)) {
    showAuthRequired();
    return;
  }
  byId('app').hidden = false;
  notify(err instanceof Error ? err.message : String(err), 'error');
});

/** A request the person started from the thread failed: its text, and the server's hint when it gave one. */
function notifyFailure(err: unknown): void {
  const hint = err instanceof ApiError && typeof err.details.hint === 'string' ? ` ${err.details.hint}` : '';
  notify(`${err instanceof Error ? err.message : String(err)}${hint}`, 'error');
}
