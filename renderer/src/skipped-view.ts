// What an extraction left out (links, devices, empty folders, sparse files ...), under the "Extracted N files"
// list: one line that counts them by kind, the names and reasons on expand and on hover.
import type { SkippedMember, SkipReason } from './api.js';
import { h } from './dom.js';

const NOUNS: Record<SkipReason, readonly [string, string]> = {
  symlink: ['link', 'links'],
  hardlink: ['hard link', 'hard links'],
  device: ['device', 'devices'],
  fifo: ['pipe', 'pipes'],
  'directory-only': ['empty folder', 'empty folders'],
  sparse: ['sparse file', 'sparse files'],
  'unsupported-type': ['special file', 'special files'],
  duplicate: ['duplicate name', 'duplicate names'],
  'path-conflict': ['clashing name', 'clashing names'],
  'name-too-long': ['path too long', 'paths too long'],
};

/** "2 links, 1 empty folder skipped", kinds in order of first appearance; '' when nothing was skipped. */
export function skippedSummary(skipped: readonly SkippedMember[]): string {
  const counts = new Map<SkipReason, number>();
  for (const s of skipped) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  if (counts.size === 0) return '';
  const parts = [...counts].map(([reason, n]) => {
    const [one, many] = NOUNS[reason] ?? [reason, reason];
    return `${n} ${n === 1 ? one : many}`;
  });
  return `${parts.join(', ')} skipped`;
}

/** `list` with the skipped members under it; `list` itself when there were none. */
export function withSkipped(list: HTMLElement, skipped: readonly SkippedMember[] | undefined, testPrefix: string): HTMLElement {
  const summary = skippedSummary(skipped ?? []);
  if (!summary) return list;
  const names = (skipped ?? []).map((s) => `${s.name} (${NOUNS[s.reason]?.[0] ?? s.reason})`);
  const note = h(
    'details',
    { class: 'extract-skipped', 'data-testid': `${testPrefix}extract-skipped`, title: names.join('\n') },
    h('summary', { class: 'muted small', 'data-testid': `${testPrefix}extract-skipped-summary` }, summary),
    h('ul', { class: 'extract-list' }, names.map((n) => h('li', { 'data-testid': `${testPrefix}extract-skipped-item`, title: n }, n))),
  );
  return h('div', { class: 'extract-outcome' }, list, note);
}
