// A copy button: puts a text on the clipboard (a message as it was written, a code block's code) and says so
// on the button for a moment ("Copied", or "Copy failed" when the system refused), read out by screen readers
// through the status region inside it.
import { h, icon } from './dom.js';

/** How long the button says "Copied": long enough to read, short enough that a second copy shows its own. */
export const COPIED_FEEDBACK_MS = 1500;

const COPY_ICON = ['M9 9h11v11H9z', 'M5 15H4V4h11v1'];

export function copyButton(label: string, testid: string, text: () => string): HTMLButtonElement {
  const status = h('span', { class: 'copy-status', role: 'status' });
  let timer = 0;
  const say = (message: string, state: 'copied' | 'failed') => {
    status.textContent = message;
    button.dataset.state = state;
    clearTimeout(timer);
    timer = window.setTimeout(() => {
      status.textContent = '';
      delete button.dataset.state;
    }, COPIED_FEEDBACK_MS);
  };
  const button = h(
    'button',
    {
      class: 'icon-btn msg-action copy-btn',
      type: 'button',
      'data-testid': testid,
      'aria-label': label,
      title: label,
      onclick: () => {
        navigator.clipboard.writeText(text()).then(
          () => say('Copied', 'copied'),
          () => say('Copy failed', 'failed'),
        );
      },
    },
    icon(COPY_ICON),
    status,
  );
  return button;
}
