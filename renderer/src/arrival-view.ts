// An Inbox arrival row (server/inbox/arrivals.ts): "report.pdf arrived from Downloads · 17:52" with each file's
// chip (its Ready/Partly/Not readable line; a click previews it), like a feed. A burst's row shows its first
// ARRIVAL_CHIPS_SHOWN chips and a button for the rest: a row of 500 files stays a few lines tall until asked.
import type { Arrival, SentAttachment } from './api.js';
import { h, icon, ICONS } from './dom.js';
import { formatTime } from './format.js';
import type { MessageRow } from './message-rows.js';

/** Chips drawn before "Show all": enough for a usual burst (a scan of a few pages), few enough to scroll past. */
export const ARRIVAL_CHIPS_SHOWN = 6;

/** What the row's head says after the time: where the files came from, for the tooltip and screen readers. */
export function arrivalPlace(a: Arrival): string {
  return a.source === 'folder' ? `Watched folder ${a.from ?? ''}`.trim() : 'Opened with Satchel';
}

/** The "Show all 12 files" button's words, or null when every chip is drawn. */
export function moreLabel(count: number, shown = ARRIVAL_CHIPS_SHOWN): string | null {
  return count > shown ? `Show all ${count.toLocaleString('en-US')} files` : null;
}

export function arrivalMessage(r: MessageRow, arrival: Arrival, chip: (a: SentAttachment) => HTMLElement): HTMLElement {
  const list = h('ul', { class: 'msg-attachments', 'data-testid': 'arrival-files' });
  const draw = (upTo: number) => {
    list.replaceChildren(...r.attachments.slice(0, upTo).map(chip));
  };
  draw(ARRIVAL_CHIPS_SHOWN);
  const label = moreLabel(r.attachments.length);
  const more = label
    ? h('button', {
        class: 'link-btn small',
        type: 'button',
        'data-testid': 'arrival-more',
        onclick: (e: Event) => {
          draw(r.attachments.length);
          (e.currentTarget as HTMLElement).remove();
        },
      }, label)
    : null;
  return h(
    'article',
    { class: 'msg msg-arrival', 'data-testid': 'arrival-row', 'data-role': 'system', 'aria-label': `${r.text}, ${formatTime(r.time)}` },
    h(
      'header',
      { class: 'msg-head', title: arrivalPlace(arrival) },
      icon([...(arrival.source === 'folder' ? ICONS.folder : ICONS.file)]),
      h('span', { class: 'arrival-text', 'data-testid': 'arrival-text' }, r.text),
      h('time', { class: 'muted small' }, `· ${formatTime(r.time)}`),
    ),
    r.attachments.length ? list : null,
    more,
  );
}
