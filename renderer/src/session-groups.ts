// The session list's order and grouping, pure so it is tested without a page: pinned sessions first, then the
// rest by last activity grouped by day ("Today", "Yesterday", a weekday within the week, then the date), and
// archived ones apart, counted for the "Show archived (N)" toggle and shown last only when it is on.

/** What the grouping reads of a session (api.ts SessionSummary has all of it). */
export interface Groupable {
  updated_at?: string;
  created_at?: string;
  pinned?: boolean;
  archived?: boolean;
}

export interface SessionGroup<S> {
  /** Stable per kind of group (tests and the DOM use it); `label` is what the person reads. */
  key: string;
  label: string;
  sessions: S[];
}

export interface GroupedSessions<S> {
  groups: SessionGroup<S>[];
  /** How many are archived, shown or not. */
  archivedCount: number;
}

export const PINNED_LABEL = 'Pinned';
export const ARCHIVED_LABEL = 'Archived';
/** A day this many days back or more is named by its date, not its weekday (a weekday then names two days). */
const WEEKDAY_SPAN_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A session's last activity, in ms (its creation when it has none; 0 when neither parses: last in the list). */
export function lastActivity(s: Groupable): number {
  const t = Date.parse(s.updated_at ?? s.created_at ?? '');
  return Number.isFinite(t) ? t : 0;
}

function byActivity<S extends Groupable>(list: S[]): S[] {
  return [...list].sort((a, b) => lastActivity(b) - lastActivity(a));
}

/** Local midnight of `t`'s day. */
function dayStart(t: number): number {
  const d = new Date(t);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** Whole local days between the two instants' days; rounding absorbs a daylight-saving hour. */
function daysBetween(earlier: number, later: number): number {
  return Math.round((dayStart(later) - dayStart(earlier)) / DAY_MS);
}

/** The group a time falls in, seen from `now`: Today, Yesterday, a weekday, or a date (with the year when not this one). */
export function dayLabel(t: number, now: number, locale?: string): string {
  const days = daysBetween(t, now);
  // A time in the future (a clock set differently elsewhere) is today's.
  if (days <= 0) return 'Today';
  if (days === 1) return 'Yesterday';
  const date = new Date(t);
  if (days < WEEKDAY_SPAN_DAYS) return new Intl.DateTimeFormat(locale, { weekday: 'long' }).format(date);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return new Intl.DateTimeFormat(locale, sameYear ? { day: 'numeric', month: 'long' } : { day: 'numeric', month: 'long', year: 'numeric' }).format(date);
}

/** The list as it is shown: pinned, then days newest first, then (when `showArchived`) the archived. */
export function groupSessions<S extends Groupable>(sessions: readonly S[], now: number, showArchived: boolean, locale?: string): GroupedSessions<S> {
  const archived = sessions.filter((s) => s.archived === true);
  const live = sessions.filter((s) => s.archived !== true);
  const groups: SessionGroup<S>[] = [];
  const pinned = byActivity(live.filter((s) => s.pinned === true));
  if (pinned.length > 0) groups.push({ key: 'pinned', label: PINNED_LABEL, sessions: pinned });
  for (const s of byActivity(live.filter((x) => x.pinned !== true))) {
    const t = lastActivity(s);
    const key = `day-${dayStart(t)}`;
    const last = groups[groups.length - 1];
    if (last?.key === key) last.sessions.push(s);
    else groups.push({ key, label: dayLabel(t, now, locale), sessions: [s] });
  }
  if (showArchived && archived.length > 0) groups.push({ key: 'archived', label: ARCHIVED_LABEL, sessions: byActivity(archived) });
  return { groups, archivedCount: archived.length };
}

/** The toggle's text. */
export function archivedToggleLabel(count: number, shown: boolean): string {
  return shown ? `Hide archived (${count})` : `Show archived (${count})`;
}
