// The Settings dialog (the sidebar's sliders button, or Ctrl/⌘+,): Inbox folders in every browser, and the
// Desktop section only where the desktop app's preload offers window.satchel.desktopSettings. Both are read
// afresh each time it opens: the tray's "Pause watching" or another window may have changed them.
import { byId, icon, ICONS } from './dom.js';
import { BackupsSection } from './settings-backups.js';
import { DictationSection } from './settings-dictation.js';
import { DesktopSettingsSection } from './settings-desktop.js';
import { InboxSettingsView } from './settings-inbox.js';
import { desktopBridge } from './settings-state.js';

export class SettingsDialog {
  private readonly dialog = byId<HTMLDialogElement>('settings-dialog');
  private readonly inbox: InboxSettingsView;
  private readonly desktop: DesktopSettingsSection | undefined;
  /** Settings → Backups: the database's state and its checked backups, each with Restore (issue 33). */
  private readonly backups = new BackupsSection();
  /** Settings → Dictation: the seconds of silence that end a recording (issue 38). */
  private readonly dictation = new DictationSection();

  constructor() {
    const satchel = (window as unknown as { satchel?: { pickFolder?: () => Promise<string | null> } }).satchel;
    const pickFolder = satchel?.pickFolder;
    this.inbox = new InboxSettingsView(typeof pickFolder === 'function' ? () => pickFolder.call(satchel) : undefined);
    const bridge = desktopBridge(window);
    this.desktop = bridge ? new DesktopSettingsSection(bridge) : undefined;
    this.dialog.querySelector('form.dialog-actions')?.before(this.dictation.element, this.backups.element);
    const button = byId<HTMLButtonElement>('settings-button');
    button.appendChild(icon([...ICONS.sliders]));
    button.title = 'Settings';
    button.addEventListener('click', () => this.open());
    this.dialog.addEventListener('close', () => this.inbox.stopLive());
  }

  open(): void {
    if (this.dialog.open) return;
    this.dialog.showModal();
    void this.inbox.load();
    // Files arrive while it is open: its counts follow them (issue 38).
    this.inbox.startLive();
    void this.desktop?.load();
    void this.backups.load();
    this.dictation.load();
  }
}
