// Promise wrappers around the page's <dialog> elements: native dialogs give focus trapping, Escape to
// close and focus return for free.
import { byId } from './dom.js';

/** Ask for one line of text; resolves null when cancelled. */
export function promptText(heading: string, label: string, initial = '', placeholder = ''): Promise<string | null> {
  const dialog = byId<HTMLDialogElement>('prompt-dialog');
  const input = byId<HTMLInputElement>('prompt-input');
  byId('prompt-heading').textContent = heading;
  byId('prompt-label').textContent = label;
  input.value = initial;
  input.placeholder = placeholder;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    // Enter in the field means OK: the form's implicit submission would press its first button, Cancel.
    const onEnter = (e: KeyboardEvent) => {
      if (e.key !== 'Enter' || e.isComposing) return;
      e.preventDefault();
      dialog.close('ok');
    };
    input.addEventListener('keydown', onEnter);
    dialog.addEventListener(
      'close',
      () => {
        input.removeEventListener('keydown', onEnter);
        resolve(dialog.returnValue === 'ok' && input.value.trim() ? input.value.trim() : null);
      },
      { once: true },
    );
    dialog.showModal();
    input.select();
  });
}
