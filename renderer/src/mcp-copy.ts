// The MCP panel's Copy buttons (a snippet, a token): the button itself says "Copied" (or that copying failed) for
// a moment; the text can still be selected by hand when the clipboard is refused.
import { h } from './dom.js';

/** How long a Copy button says "Copied" (or that copying failed) before it reads "Copy" again. */
export const COPY_FEEDBACK_MS = 2_000;

export async function copy(button: HTMLButtonElement, text: () => string): Promise<void> {
  let done = false;
  try {
    await navigator.clipboard.writeText(text());
    done = true;
  } catch {
    // no clipboard permission (or an insecure context): the button says so; the text can still be selected
  }
  button.textContent = done ? 'Copied' : 'Copy failed';
  button.dataset.state = done ? 'copied' : 'failed';
  setTimeout(() => {
    button.textContent = 'Copy';
    delete button.dataset.state;
  }, COPY_FEEDBACK_MS);
}

/** A small "Copy" button for `text` (its name is its text, so "Copied" is read out as it changes). */
export function copyTextButton(testid: string, text: () => string): HTMLButtonElement {
  const button = h('button', { class: 'btn btn-small', type: 'button', 'data-testid': testid }, 'Copy');
  button.addEventListener('click', () => void copy(button, text));
  return button;
}
