// Electron glue: wires the tested pieces to Electron's objects. Kept thin on purpose; every decision it
// makes lives in a module with unit tests. Imported only when running under Electron (see index.ts).
import { lstat, realpath, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  safeStorage,
  screen,
  session,
  shell,
  systemPreferences,
  utilityProcess,
  type OpenDialogOptions,
  type WebContents,
} from 'electron';
import type { AppOptions } from '../server/app.js';
import { loadConfig, type ServerConfig } from '../server/core/config.js';
import { sanitizeErrorText } from '../server/core/errors.js';
import { startServer, type RunningServer } from '../server/index.js';
import { log } from '../server/core/log.js';
import { accessCookieDetails, appRootUrl } from './access-cookie.js';
import { parseMainArgs, type MainArgs } from './args.js';
import { attachGuards } from './guards.js';
import { DesktopShell, type WatchControl } from './desktop-shell.js';
import { createDesktopSettingsHandler, DESKTOP_SETTINGS_CHANNEL } from './desktop-settings-ipc.js';
import { guiServerPlan, loadDesktopSettings, type DesktopSettings } from './gui-config.js';
import { OpenPathQueue, pathArguments } from './open-paths.js';
import { debounced, loadWindowState, rememberWindow, restoreWindow, saveWindowState } from './window-state.js';
import { closeWithDeadline, onStopSignal } from './lifecycle.js';
import { applyPackagedModelDir } from './model-dir.js';
import { installPermissionHandlers } from './permissions.js';
import { createPickFolderHandler, PICK_FOLDER_CHANNEL } from './pick-folder.js';
import { createShowInFolderHandler, SHOW_IN_FOLDER_CHANNEL } from './show-in-folder.js';
import { CAPTURE_SCREEN_CHANNEL, createCaptureScreenHandler, createScreenSourcesHandler, SCREEN_SOURCES_CHANNEL } from './screen-capture.js';
import { electronRegionOverlayDeps, electronScreenCaptureDeps } from './screen-capture-electron.js';
import { createRegionOverlayHandler, REGION_OVERLAY_CHANNEL } from './region-overlay.js';
import { startOnRememberedPort } from '../server/process/port-store.js';
import { setHostLauncher } from '../server/workspace/off-thread.js';
import { utilityHostLauncher, workerHostFile } from './worker-process.js';
import { openAgentKeyStore, openMcpTokenStore } from './secret-file-store.js';
import { remembersPort, startFailure, startHeadless } from '../server/cli.js';
import { runHeadless } from '../server/headless.js';
import { claimSingleInstance } from './single-instance.js';
import { claimStateFolder, StateFolderInUse, type StateLock } from '../server/process/state-lock.js';
import { attachedServer } from './running-instance.js';
import { startupPlan } from './startup-plan.js';
import { windowOptions } from './window-options.js';

const PRELOAD_PATH = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));
const FOLDER_DIALOG: OpenDialogOptions = { properties: ['openDirectory'] };

/** What the lead's wiring hands in: the parts of the companion that live in the server (server/inbox). */
export interface ElectronDeps {
  /** Files opened with Satchel → the Inbox conversation's upload path; its session id, to show it. */
  deliverOpenPaths?: (server: RunningServer, paths: string[]) => Promise<{ sessionId?: string } | void>;
  /** The Inbox watcher's pause switch, for the tray. */
  watchControl?: (server: RunningServer) => WatchControl | undefined;
}

export function startElectron(argv: readonly string[], deps: ElectronDeps = {}): void {
  let args: MainArgs;
  try {
    args = parseMainArgs(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    app.exit(2);
    return;
  }
  applyPackagedModelDir(process.env, { isPackaged: app.isPackaged, resourcesPath: process.resourcesPath });
  // The OCR and PDF workers in utility processes that end when idle (worker-process.ts); started after 'ready'.
  setHostLauncher(workerHostFile(), utilityHostLauncher(utilityProcess));
  // Every renderer sandboxed, including any the options below might miss.
  app.enableSandbox();
  const plan = startupPlan(args, process.platform);
  // Switches only count before 'ready'; this runs while the entry module is still being evaluated.
  for (const [name, value] of plan.switches) app.commandLine.appendSwitch(name, value);
  if (plan.disableHardwareAcceleration) app.disableHardwareAcceleration();
  if (plan.mode === 'server-only') startServerOnly(args);
  else startWindow(args, plan.singleInstanceLock, argv, deps);
}

/** The agent's key and the MCP token in the system's secure storage (secret-file-store.ts); safeStorage answers only after 'ready'. */
async function secretStores(config: ServerConfig): Promise<AppOptions> {
  return {
    agentKeyStore: await openAgentKeyStore(config.stateDir, safeStorage),
    mcpTokenStore: await openMcpTokenStore(config.stateDir, safeStorage),
  };
}

function startServerOnly(args: MainArgs): void {
  app
    .whenReady()
    .then(() => {
      app.dock?.hide();
      return runHeadless({
        // The port is remembered in the state folder exactly as `npm run serve` does (server/cli.ts).
        start: async () => {
          const config = loadConfig(process.env, args.flags);
          // The folder is ours before its key store is touched (a key is moved out of agent.json).
          const lock = await claimStateFolder(config.stateDir);
          try {
            return await startHeadless(config, remembersPort(config, args.flags, process.env), await secretStores(config), lock);
          } catch (err) {
            await lock.release();
            throw err;
          }
        },
        print: (line) => process.stdout.write(line + '\n'),
        signals: process,
        exit: (code) => app.exit(code),
        onError: (err) => log.error('Closing the server failed:', err),
      });
    })
    .catch((err: unknown) => {
      // Another Satchel on the state folder: its one sentence, and its own exit code (as `npm run serve`).
      if (err instanceof StateFolderInUse) {
        const { line, code } = startFailure(err);
        process.stderr.write(`${line}\n`);
        app.exit(code);
        return;
      }
      log.error('Satchel could not start:', err);
      app.exit(1);
    });
}

function startWindow(args: MainArgs, singleInstance: boolean, argv: readonly string[], deps: ElectronDeps): void {
  let mainWindow: BrowserWindow | undefined;
  let server: RunningServer | undefined;
  let desktop: DesktopShell | undefined;
  // The desktop settings once read (openWithTo says where opened files go); the shell changes them in place.
  let settings: DesktopSettings | undefined;
  let closed = false;

  // Files opened with Satchel wait here until the server and the window are up (open-paths.ts).
  const opened = new OpenPathQueue({
    realpath: (p) => realpath(p),
    stat: (p) => stat(p),
    deliver: async (paths) => {
      if (!server) return;
      // The server's own Inbox (server/inbox/open-with.ts) unless a test gives its own.
      if (deps.deliverOpenPaths) return deps.deliverOpenPaths(server, paths);
      const result = await server.desktop.addToInbox(paths, settings?.openWithTo);
      if (result.skipped.length) log.info(`Not added to the Inbox: ${result.skipped.map((s) => `${s.path} (${s.reason})`).join(', ')}`);
      return result;
    },
    onDelivered: (result) => (result?.sessionId ? desktop?.openConversation(result.sessionId) : desktop?.showMain()),
    onRefused: (refused) => log.info(`Not opened: ${refused.map((r) => `${r.path} (${r.reason})`).join(', ')}`),
    onError: (err) => log.warn('Adding opened files failed:', err),
  });
  const secondInstance = (secondArgv: string[], cwd: string) => opened.add(pathArguments(secondArgv, app.isPackaged), cwd);
  if (singleInstance && !claimSingleInstance(app, () => mainWindow, secondInstance)) {
    app.quit();
    return;
  }
  // macOS sends files opened with the app (Finder, the Dock) as open-file, before 'ready' for the one it
  // launched with; on Windows and Linux they are the first instance's own arguments (the .desktop entry's %F).
  app.on('open-file', (event, file) => {
    event.preventDefault();
    opened.add([file], '/');
  });
  opened.add(pathArguments(['', ...argv], app.isPackaged), process.cwd());

  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', (event) => {
    if (closed || !server) return;
    event.preventDefault();
    const running = server;
    server = undefined;
    void closeWithDeadline(() => running.close(), undefined, (err) => log.error('Closing the server failed:', err)).then(
      () => {
        closed = true;
        app.quit();
      },
    );
  });
  onStopSignal(process, () => app.quit());

  app
    .whenReady()
    .then(async () => {
      const userData = app.getPath('userData');
      const plan = guiServerPlan(loadConfig(process.env, args.flags), args.flags, process.env, userData);
      const loaded = await loadDesktopSettings(userData, process.platform);
      settings = loaded;
      // The folder is ours before its key store is touched; a server already running on it (`npm run serve`,
      // `--server-only`) is opened in the window instead (running-instance.ts).
      const claimed: StateLock | StateFolderInUse = await claimStateFolder(plan.config.stateDir).catch((err: unknown) => {
        if (err instanceof StateFolderInUse && err.instance) return err;
        throw err;
      });
      if (claimed instanceof StateFolderInUse) {
        log.info(`${claimed.message}; opening it in the window`);
        server = attachedServer(claimed.stateDir, claimed.instance!);
      } else {
        const lock = claimed;
        try {
          const config = plan.config;
          // A reply stored whole reaches the shell in process (server/agent/turns.ts onReplyFinished).
          const options: AppOptions = { ...(await secretStores(config)), agent: { onReplyFinished: (reply) => desktop?.replyFinished(reply) } };
          server = plan.rememberPort
            ? await startOnRememberedPort(userData, (port) => startServer({ ...config, port }, options, lock), {
                onFallback: (port, err) => log.info(`Port ${port} is unavailable (${(err as Error).message}); using another`),
                onSaveError: (err) => log.warn('Could not remember the port:', err),
              })
            : await startServer(config, options, lock);
        } catch (err) {
          await lock.release();
          throw err;
        }
      }
      const appOrigin = server.origin;

      installPermissionHandlers(session.defaultSession, appOrigin, {
        askSystemForMicrophone:
          process.platform === 'darwin' ? () => systemPreferences.askForMediaAccess('microphone') : undefined,
      });
      const popupOptions = () => windowOptions({ preloadPath: PRELOAD_PATH, version: app.getVersion() });
      app.on('web-contents-created', (_event, contents: WebContents) =>
        attachGuards(contents, {
          appOrigin,
          openExternal: (url) => shell.openExternal(url),
          popupOptions: () => ({ ...popupOptions(), show: true }),
          onError: (err) => log.warn('Opening a link failed:', err),
        }),
      );
      ipcMain.handle(
        PICK_FOLDER_CHANNEL,
        createPickFolderHandler({
          appOrigin,
          showOpenDialog: () =>
            mainWindow && !mainWindow.isDestroyed()
              ? dialog.showOpenDialog(mainWindow, FOLDER_DIALOG)
              : dialog.showOpenDialog(FOLDER_DIALOG),
        }),
      );
      ipcMain.handle(
        SHOW_IN_FOLDER_CHANNEL,
        createShowInFolderHandler({ appOrigin, lstat: (p) => lstat(p), showItemInFolder: (p) => shell.showItemInFolder(p) }),
      );
      // Quick capture's Screenshot: the picker's list, then one source's full-size PNG (main/screen-capture.ts).
      const screenCapture = electronScreenCaptureDeps(appOrigin);
      ipcMain.handle(SCREEN_SOURCES_CHANNEL, createScreenSourcesHandler(screenCapture));
      ipcMain.handle(CAPTURE_SCREEN_CHANNEL, createCaptureScreenHandler(screenCapture));
      // Its region step: the capture window covers the taken screen's display (main/region-overlay.ts).
      ipcMain.handle(
        REGION_OVERLAY_CHANNEL,
        createRegionOverlayHandler(electronRegionOverlayDeps(appOrigin, (err) => log.warn('Covering the screen for a screenshot failed:', err))),
      );

      await session.defaultSession.cookies.set(accessCookieDetails(appOrigin, server.token));
      desktop = new DesktopShell({
        appOrigin,
        token: server.token,
        userData,
        preloadPath: PRELOAD_PATH,
        version: app.getVersion(),
        settings: loaded,
        mainWindow: () => mainWindow,
        watch: deps.watchControl ? deps.watchControl(server) : server.desktop.watching,
        // A drop names absolute paths; anything else is not resolved against some folder, it is left out.
        openPaths: (paths) => opened.add(paths.filter((p) => isAbsolute(p)), userData),
      });
      desktop.start();
      const companion = desktop;
      ipcMain.handle(
        DESKTOP_SETTINGS_CHANNEL,
        createDesktopSettingsHandler({
          appOrigin,
          platform: process.platform,
          current: () => loaded,
          statuses: () => companion.shortcutStatuses,
          update: (change) => companion.updateSettings(change),
        }),
      );
      let windowState = await loadWindowState(userData);
      const restored = restoreWindow(windowState, screen.getAllDisplays(), screen.getPrimaryDisplay());
      const win = new BrowserWindow({ ...popupOptions(), ...restored.bounds });
      mainWindow = win;
      if (restored.maximized) win.maximize();
      win.once('ready-to-show', () => win.show());
      const saver = debounced(() => {
        if (win.isDestroyed() || win.isMinimized()) return;
        windowState = rememberWindow(windowState, win.getNormalBounds(), win.isMaximized(), screen.getAllDisplays());
        void saveWindowState(userData, windowState).catch((err: unknown) => log.warn('Could not remember the window:', err));
      });
      for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(event as 'resize', () => saver.schedule());
      win.on('close', () => saver.flush());
      desktop.attachWindow(win);
      win.on('closed', () => {
        mainWindow = undefined;
      });
      await win.loadURL(appRootUrl(appOrigin));
      opened.start();
    })
    .catch((err: unknown) => {
      log.error('Satchel could not start:', err);
      // The refusal names the person's own state folder on purpose (another Satchel still starting there).
      const text = err instanceof StateFolderInUse ? err.message : sanitizeErrorText(err instanceof Error ? err.message : String(err));
      dialog.showErrorBox('Satchel could not start', text);
      app.exit(1);
    });
}
