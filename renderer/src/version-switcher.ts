// ‹ 2/3 ›: which version of the conversation a message shows (docs/API.md, "Versions"), with a way to the
// others. Under the person's message when its versions differ in what they said (Edit); under the reply when
// only the replies differ (Regenerate), where people look for it.
import type { MessageVersions } from './api.js';
import { h } from './dom.js';
import type { MessageRow } from './message-rows.js';

/** "2/3": the version shown (counted from 1) of how many. */
export function versionText(v: MessageVersions): string {
  return `${v.index + 1}/${v.count}`;
}

/**
 * Where each fork's switcher goes: the index (into `rows`) of the row that shows it, mapped to the fork's row
 * (the person's message, whose `index` the server names). A Regenerate's goes to the first reply after it.
 */
export function switcherPlaces(rows: readonly MessageRow[]): Map<number, MessageRow> {
  const places = new Map<number, MessageRow>();
  rows.forEach((r, i) => {
    if (r.role !== 'user' || !r.versions) return;
    const reply = rows[i + 1];
    const onReply = !r.versions.edited && reply !== undefined && reply.role !== 'user';
    places.set(onReply ? i + 1 : i, r);
  });
  return places;
}

/** The switcher; `pick(version)` shows another version; `disabled` while a turn runs (its rows belong to this one). */
export function versionSwitcher(v: MessageVersions, pick: (version: number) => void, disabled: boolean): HTMLElement {
  const step = (to: number, label: string, glyph: string) =>
    h(
      'button',
      {
        class: 'icon-btn version-step',
        type: 'button',
        'aria-label': label,
        title: label,
        'data-testid': to < v.index ? 'version-previous' : 'version-next',
        disabled: disabled || to < 0 || to >= v.count,
        onclick: () => pick(to),
      },
      glyph,
    );
  return h(
    'span',
    { class: 'version-switcher', 'data-testid': 'versions', role: 'group', 'aria-label': `Version ${v.index + 1} of ${v.count}` },
    step(v.index - 1, 'Previous version', '‹'),
    h('span', { class: 'version-text', 'data-testid': 'version-text' }, versionText(v)),
    step(v.index + 1, 'Next version', '›'),
  );
}
