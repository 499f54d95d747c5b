// ‹ 2/3 ›: which version of the conversation a message shows (docs/API.md, "Versions"), with a way to the
// others. Under the person's message when what they said differs (Edit); under the reply when the replies to the
// message shown differ (Regenerate), where people look for it; both when both do.
import type { MessageVersions, VersionLevel } from './api.js';
import { h } from './dom.js';
import type { MessageRow } from './message-rows.js';

/** "2/3": the version shown (counted from 1) of how many. */
export function versionText(v: Pick<VersionLevel, 'index' | 'count'>): string {
  return `${v.index + 1}/${v.count}`;
}

/** A switcher's place: the person's message it switches from, and which level (what was said, or the replies). */
export interface SwitcherPlace {
  fork: MessageRow;
  level: VersionLevel;
}

/**
 * Where the switchers go: the index (into `rows`) of the row that shows one. What was said switches under the
 * person's message, the replies to it under the first reply after it (where people look for Regenerate's); with
 * no reply after it, the replies' switcher sits under the message when the message has only one text.
 */
export function switcherPlaces(rows: readonly MessageRow[]): Map<number, SwitcherPlace> {
  const places = new Map<number, SwitcherPlace>();
  rows.forEach((r, i) => {
    if (r.role !== 'user' || !r.versions) return;
    const { message, reply } = r.versions;
    if (message.count > 1) places.set(i, { fork: r, level: message });
    if (reply.count < 2) return;
    const next = rows[i + 1];
    if (next !== undefined && next.role !== 'user') places.set(i + 1, { fork: r, level: reply });
    else if (message.count < 2) places.set(i, { fork: r, level: reply });
  });
  return places;
}

/** The two levels of `v`, made from the raw index and count for a summary without them (one level, as `edited` says). */
export function versionLevels(v: Pick<MessageVersions, 'index' | 'count' | 'edited'> & Partial<Pick<MessageVersions, 'message' | 'reply'>>): Pick<MessageVersions, 'message' | 'reply'> {
  const valid = (l: VersionLevel | undefined): l is VersionLevel =>
    !!l && Number.isInteger(l.index) && Number.isInteger(l.count) && Array.isArray(l.versions) && l.versions.length === l.count && l.index >= 0 && l.index < l.count && l.versions.every((x) => Number.isInteger(x) && x >= 0 && x < v.count);
  if (valid(v.message) && valid(v.reply)) return { message: v.message, reply: v.reply };
  const all: VersionLevel = { index: v.index, count: v.count, versions: Array.from({ length: v.count }, (_, i) => i) };
  const one: VersionLevel = { index: 0, count: 1, versions: [v.index] };
  return v.edited ? { message: all, reply: one } : { message: one, reply: all };
}

/** The switcher of one level; `pick(version)` shows another version; `disabled` while a turn runs (its rows belong to this one). */
export function versionSwitcher(v: VersionLevel, pick: (version: number) => void, disabled: boolean): HTMLElement {
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
        onclick: () => pick(v.versions[to]!),
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
