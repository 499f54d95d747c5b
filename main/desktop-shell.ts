// Electron glue of the desktop companion: the tray, global shortcuts, the application menu, the quick-capture
// window, "reply ready" notifications and files opened with Satchel. Thin on purpose: every decision is a
// tested pure function (tray-menu.ts, shortcuts.ts, app-menu.ts, open-paths.ts, window-options.ts); this
// file only builds Electron objects from their answers. Driven by main/electron-main.test.ts's fake electron.
import { app, BrowserWindow, globalShortcut, Menu, nativeImage, Notification, Tray } from 'electron';
import { log } from '../server/core/log.js';
import type { FinishedReply } from '../server/agent/turns.js';
import { appMenuTemplate, loginItemSupported } from './app-menu.js';
import { saveDesktopSettings, type DesktopSettings } from './gui-config.js';
import { focusWindow } from './single-instance.js';
import { registerShortcuts, shortcutProblems, type ShortcutAction, type ShortcutStatus } from './shortcuts.js';
import {
  conversationUrl,
  decideClose,
  recentConversations,
  replyNotification,
  settingsUrl,
  shouldNotifyReply,
  trayIconPath,
  trayMenuTemplate,
  type RecentConversation,
  type WatchingState,
} from './tray-menu.js';
import { captureUrl, captureWindowOptions } from './window-options.js';

/** The tray icon's size in points; Electron picks the @2x pixels on a Retina display from the same image. */
export const TRAY_ICON_SIZE = 16;
/** The recent conversations are read from the server with this deadline: the tray never waits longer. */
export const RECENT_FETCH_TIMEOUT_MS = 2_000;

/** The Inbox watcher's pause switch (server/inbox, wired by whoever starts it); absent: no tray item. */
export interface WatchControl {
  state(): WatchingState;
  pause(): void;
  resume(): void;
}

export interface ShellContext {
  appOrigin: string;
  token: string;
  userData: string;
  preloadPath: string;
  version: string;
  settings: DesktopSettings;
  /** The main window, if it is open (it may be hidden in the tray). */
  mainWindow(): BrowserWindow | undefined;
  watch?: WatchControl;
  /** Files dropped on the tray icon (macOS), handed to the same queue as files opened with Satchel. */
  openPaths?: (paths: readonly string[]) => void;
}

export class DesktopShell {
  private tray: Tray | undefined;
  private capture: BrowserWindow | undefined;
  private shortcuts: ShortcutStatus[] = [];
  private recent: RecentConversation[] = [];
  private quitting = false;
  /** Push-to-talk presses while the capture window is open (captureUrl's #ptt=<n>). */
  private presses = 0;

  constructor(private readonly ctx: ShellContext) {}

  /** Everything after 'ready', once the server answers: the menu, the tray, the shortcuts. */
  start(): void {
    app.on('before-quit', () => {
      this.quitting = true;
    });
    app.on('will-quit', () => globalShortcut.unregisterAll());
    // macOS: a click on the Dock icon with the window hidden in the tray brings it back.
    app.on('activate', () => this.showMain());
    this.createTray();
    this.applyShortcuts();
    this.rebuildMenus();
    void this.refreshRecent();
  }

  /** The main window's 'close': hidden in the tray when the setting says so, else closed. */
  attachWindow(win: BrowserWindow): void {
    win.on('close', (event) => {
      if (decideClose({ closeToTray: this.ctx.settings.closeToTray, quitting: this.quitting, hasTray: this.tray !== undefined }) === 'hide') {
        event.preventDefault();
        win.hide();
      }
    });
    // The tray's recent list follows what the person just did in the window.
    win.on('hide', () => void this.refreshRecent());
    win.on('blur', () => void this.refreshRecent());
  }

  get shortcutStatuses(): readonly ShortcutStatus[] {
    return this.shortcuts;
  }

  showMain(url?: string): void {
    const win = this.ctx.mainWindow();
    if (!win || win.isDestroyed()) return;
    if (url) void win.loadURL(url).catch((err: unknown) => log.warn('Opening a conversation failed:', err));
    focusWindow(win);
  }

  openConversation(sessionId: string): void {
    const url = conversationUrl(this.ctx.appOrigin, sessionId);
    if (url) this.showMain(url);
  }

  /** The quick-capture window (one at a time); Dictate opens it recording. */
  openCapture(dictate = false): void {
    const existing = this.capture;
    if (existing && !existing.isDestroyed()) {
      if (dictate) {
        const url = captureUrl(this.ctx.appOrigin, true, ++this.presses, this.ctx.settings.pushToTalkTo);
        void existing.loadURL(url).catch((err: unknown) => log.warn('Opening quick capture failed:', err));
      }
      focusWindow(existing);
      return;
    }
    const url = captureUrl(this.ctx.appOrigin, dictate, 0, this.ctx.settings.pushToTalkTo);
    const win = new BrowserWindow(captureWindowOptions({ preloadPath: this.ctx.preloadPath, version: this.ctx.version }));
    this.capture = win;
    win.once('ready-to-show', () => win.show());
    win.on('closed', () => {
      if (this.capture === win) this.capture = undefined;
    });
    void win.loadURL(url).catch((err: unknown) => log.warn('Opening quick capture failed:', err));
  }

  /** From the server's onReplyFinished hook: a notification when the person is not looking at Satchel. */
  replyFinished(reply: FinishedReply): void {
    void this.refreshRecent();
    const win = this.ctx.mainWindow();
    const alive = win !== undefined && !win.isDestroyed();
    const notify = shouldNotifyReply({
      supported: Notification.isSupported(),
      windowVisible: alive && win.isVisible(),
      windowFocused: alive && win.isFocused(),
      windowMinimized: alive && win.isMinimized(),
    });
    if (!notify) return;
    const notification = new Notification({ ...replyNotification(reply.title), silent: false });
    notification.on('click', () => this.openConversation(reply.session_id));
    notification.show();
  }

  /** Settings changed (the settings page, the menu's switches): saved, then applied. */
  async updateSettings(change: Partial<DesktopSettings>): Promise<void> {
    Object.assign(this.ctx.settings, change);
    if (change.openAtLogin !== undefined && loginItemSupported(process.platform)) {
      app.setLoginItemSettings({ openAtLogin: change.openAtLogin });
    }
    if (change.shortcuts) this.applyShortcuts();
    this.rebuildMenus();
    await saveDesktopSettings(this.ctx.userData, this.ctx.settings);
  }

  private applyShortcuts(): void {
    const handlers: Record<ShortcutAction, () => void> = {
      quickCapture: () => this.openCapture(false),
      pushToTalk: () => this.openCapture(true),
    };
    this.shortcuts = registerShortcuts(globalShortcut, this.ctx.settings.shortcuts, process.platform, handlers, this.shortcuts);
    const problems = shortcutProblems(this.shortcuts);
    if (problems.length === 0) return;
    // Never silently lost: logged, shown as a system notification, and listed in the settings (desktop-settings IPC).
    for (const problem of problems) log.warn(problem);
    if (Notification.isSupported()) new Notification({ title: 'A Satchel shortcut does not work', body: problems.join('\n') }).show();
  }

  private activeAccelerator(action: ShortcutAction): string {
    const status = this.shortcuts.find((s) => s.action === action);
    return status?.state === 'active' ? status.accelerator : '';
  }

  private rebuildMenus(): void {
    const quickCaptureAccelerator = this.activeAccelerator('quickCapture');
    const dictateAccelerator = this.activeAccelerator('pushToTalk');
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        appMenuTemplate(
          {
            platform: process.platform,
            isPackaged: app.isPackaged,
            quickCaptureAccelerator,
            dictateAccelerator,
            openAtLogin: this.ctx.settings.openAtLogin,
            closeToTray: this.ctx.settings.closeToTray,
          },
          {
            quickCapture: () => this.openCapture(false),
            dictate: () => this.openCapture(true),
            setOpenAtLogin: (on) => void this.updateSettings({ openAtLogin: on }).catch((err: unknown) => log.warn('Saving a setting failed:', err)),
            setCloseToTray: (on) => void this.updateSettings({ closeToTray: on }).catch((err: unknown) => log.warn('Saving a setting failed:', err)),
            openSettings: () => this.showMain(settingsUrl(this.ctx.appOrigin)),
          },
        ),
      ),
    );
    this.tray?.setContextMenu(
      Menu.buildFromTemplate(
        trayMenuTemplate(
          { recent: this.recent, watching: this.ctx.watch?.state() ?? 'none', quickCaptureAccelerator, dictateAccelerator },
          {
            quickCapture: () => this.openCapture(false),
            dictate: () => this.openCapture(true),
            openConversation: (id) => this.openConversation(id),
            openWindow: () => this.showMain(),
            openSettings: () => this.showMain(settingsUrl(this.ctx.appOrigin)),
            pauseWatching: () => {
              this.ctx.watch?.pause();
              this.rebuildMenus();
            },
            resumeWatching: () => {
              this.ctx.watch?.resume();
              this.rebuildMenus();
            },
            quit: () => app.quit(),
          },
        ),
      ),
    );
  }

  private createTray(): void {
    const icon = nativeImage
      .createFromPath(trayIconPath({ isPackaged: app.isPackaged, resourcesPath: process.resourcesPath ?? '', appPath: app.getAppPath() }))
      .resize({ width: TRAY_ICON_SIZE, height: TRAY_ICON_SIZE });
    if (icon.isEmpty()) {
      // Without an image a tray icon is invisible; then closing the window must not hide it there either.
      log.warn('The tray icon image is missing; Satchel runs without a tray icon');
      return;
    }
    if (process.platform === 'darwin') icon.setTemplateImage(true);
    this.tray = new Tray(icon);
    this.tray.setToolTip('Satchel');
    // Windows and Linux: a click on the icon opens the window (the menu is on the right click / its own click).
    this.tray.on('click', () => this.showMain());
    // macOS: files dropped on the menu-bar icon arrive like files opened with Satchel (open-paths.ts checks them).
    this.tray.on('drop-files', (_event: unknown, files: unknown) => {
      if (Array.isArray(files)) this.ctx.openPaths?.(files.filter((f): f is string => typeof f === 'string'));
    });
  }

  /** The recent conversations, from the server's own list (GET /api/sessions), then the tray menu again. */
  private async refreshRecent(): Promise<void> {
    try {
      const res = await fetch(`${this.ctx.appOrigin}/api/sessions`, {
        headers: { Authorization: `Bearer ${this.ctx.token}` },
        signal: AbortSignal.timeout(RECENT_FETCH_TIMEOUT_MS),
      });
      if (!res.ok) throw new Error(`GET /api/sessions answered ${res.status}`);
      this.recent = recentConversations(await res.json());
    } catch (err) {
      log.debug('Could not read the recent conversations for the tray:', err);
    }
    this.rebuildMenus();
  }
}
