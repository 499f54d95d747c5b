// What the agent did for a reply, as the thread shows it once the reply is stored: the tools it ran (the live
// turn's cards, read back from the row's `tool_activity`) folded into one "2 tools · 0.4 s" line, and the usage
// it reported. A row without usage (the agent reported none) shows no usage: unknown is not "0 in · 0 out".
import type { ChatUsage, Message, ToolActivity } from './api.js';
import { usageLine, type ToolCard } from './chat-state.js';
import { h } from './dom.js';

/** What a stored assistant row says the agent did (empty for every other row). */
export interface ReplyActivity {
  tools: ToolCard[];
  /** Tools the server counted past its bound but did not keep. */
  omitted: number;
  usage: ChatUsage | undefined;
}

const STATUS: Record<ToolActivity['status'], ToolCard['status']> = { finished: 'done', failed: 'failed', stopped: 'stopped' };

/** A row's activity; a field of another shape (an older or newer server's) reads as nothing. */
export function replyActivity(m: Message): ReplyActivity {
  const list: unknown[] = Array.isArray(m.tool_activity) ? m.tool_activity : [];
  const tools = list.flatMap((t, i): ToolCard[] => {
    if (!t || typeof t !== 'object') return [];
    const { name, preview, status, duration_seconds: duration } = t as Partial<ToolActivity>;
    return [
      {
        tid: `stored-${i}`,
        name: typeof name === 'string' && name ? name : 'tool',
        preview: typeof preview === 'string' ? preview : '',
        status: (typeof status === 'string' && STATUS[status]) || 'stopped',
        duration: typeof duration === 'number' && Number.isFinite(duration) ? duration : undefined,
      },
    ];
  });
  const omitted = typeof m.tool_activity_omitted === 'number' && m.tool_activity_omitted > 0 ? m.tool_activity_omitted : 0;
  const u = m.usage;
  const usage = u && typeof u === 'object' && typeof u.input_tokens === 'number' && typeof u.output_tokens === 'number' ? u : undefined;
  return { tools, omitted, usage };
}

/** "2 tools · 0.4 s": how many ran and their time together (the summary of the folded cards). */
export function activitySummary(a: Pick<ReplyActivity, 'tools' | 'omitted'>): string {
  const count = a.tools.length + a.omitted;
  const seconds = a.tools.reduce((sum, t) => sum + (t.duration ?? 0), 0);
  const parts = [`${count} ${count === 1 ? 'tool' : 'tools'}`];
  if (a.tools.some((t) => t.duration !== undefined)) parts.push(`${seconds.toFixed(1)} s`);
  const failed = a.tools.filter((t) => t.status === 'failed').length;
  if (failed) parts.push(`${failed} failed`);
  return parts.join(' · ');
}

/** A stored reply's usage line, its throughput worked out as the server's `metering` frame does. */
export function storedUsageLine(usage: ChatUsage | undefined): string {
  if (!usage) return '';
  const seconds = usage.duration_seconds;
  const tps = usage.output_tokens > 0 && seconds > 0 ? Math.round((usage.output_tokens / seconds) * 10) / 10 : undefined;
  return usageLine(usage, tps);
}

/** One tool's card, live (turn-view.ts) or stored: its name, one-line preview, how it ended and how long it took. */
export function toolCard(t: ToolCard): HTMLElement {
  const took = typeof t.duration === 'number' ? ` in ${t.duration.toFixed(1)} s` : '';
  const state = t.status === 'running' ? 'running…' : t.status === 'stopped' ? 'stopped' : `${t.status === 'failed' ? 'failed' : 'finished'}${took}`;
  return h(
    'li',
    { class: `tool-card tool-${t.status}`, 'data-testid': 'tool-card', 'data-status': t.status, 'data-tool': t.name },
    h('span', { class: 'tool-name' }, t.name),
    t.preview ? h('span', { class: 'tool-preview muted small', title: t.preview }, t.preview) : null,
    h('span', { class: 'tool-state small', 'data-testid': 'tool-state' }, state),
  );
}

/** The stored tools, folded (`<details>`, closed): null when the agent ran none. */
export function activityView(a: ReplyActivity): HTMLElement | null {
  if (a.tools.length === 0 && a.omitted === 0) return null;
  return h(
    'details',
    { class: 'reply-activity', 'data-testid': 'reply-activity' },
    h('summary', { 'data-testid': 'activity-summary' }, activitySummary(a)),
    h('ul', { class: 'tool-cards' }, a.tools.map(toolCard)),
    a.omitted ? h('p', { class: 'small muted' }, `and ${a.omitted} more not kept`) : null,
  );
}

/** The usage line under a reply: its stored usage, else (the reply just streamed) the live turn's line. */
export function usageView(a: ReplyActivity, live: string | undefined): HTMLElement | null {
  const text = storedUsageLine(a.usage) || live;
  return text ? h('p', { class: 'small muted', 'data-testid': 'usage' }, text) : null;
}
