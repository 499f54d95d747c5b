// A running turn in the thread: what the person sent, then the reply as it streams (Markdown, re-rendered
// at most once per animation frame), the agent's reasoning folded away, one card per tool, and how it ended.
import { RESTARTING_TEXT, type ToolCard, type TurnState, usageLine } from './chat-state.js';
import { clear, h } from './dom.js';
import { failureBox, stopMarker } from './error-row.js';
import { renderMarkdown } from './markdown-dom.js';
import { answeredByView, userMessage } from './messages.js';
import { toolCard } from './reply-activity.js';

export class TurnView {
  readonly el: HTMLElement;
  private readonly reply: HTMLElement;
  private readonly text = h('div', { class: 'msg-text md', 'data-testid': 'assistant-text' });
  private readonly reasoning = h('details', { class: 'reasoning', 'data-testid': 'reasoning', hidden: true }, h('summary', {}, 'Reasoning'));
  private readonly reasoningText = h('pre', { class: 'reasoning-text' });
  private readonly tools = h('ul', { class: 'tool-cards', 'data-testid': 'tool-cards' });
  private readonly foot = h('div', { class: 'turn-foot small muted' });
  private readonly head = h('header', { class: 'msg-head' }, h('span', { class: 'msg-role' }, 'assistant'));
  /** The "who answers" said in the head ("Home box · model-a"), to draw it again only when it changes. */
  private drawnBy = '';
  private state: TurnState | null = null;
  /** After a stop: the quiet line below the reply, as the stored stop row is drawn. */
  private stopped: HTMLElement | null = null;
  /** When the stop arrived (the row the server stores has its own time, a moment later). */
  private stoppedAt = 0;
  private frame = 0;
  private renderedText: string | null = null;

  /** What the turn's person sent heads it; its attachments' chips open their previews in the turn's session. */
  constructor(turn: TurnState) {
    const { userText, attachments, sessionId } = turn;
    this.reasoning.appendChild(this.reasoningText);
    this.reply = h(
      'article',
      { class: 'msg msg-other msg-live', 'data-testid': 'assistant-live', 'aria-busy': 'true' },
      this.head,
      this.reasoning,
      this.tools,
      this.text,
      this.foot,
    );
    this.el = h('div', { class: 'live-turn', 'data-testid': 'live-turn' }, userMessage(userText, attachments, undefined, sessionId), this.reply);
    this.update(turn);
  }

  /** Take the newest state; the DOM follows on the next animation frame, however many frames arrived. */
  update(state: TurnState): void {
    this.state = state;
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
  }

  /** Render now (the turn ended, or the view is about to be read). */
  flush(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.render();
  }

  private render(): void {
    this.frame = 0;
    const st = this.state;
    if (!st) return;
    if (st.text !== this.renderedText) {
      clear(this.text);
      this.text.appendChild(renderMarkdown(st.text));
      this.renderedText = st.text;
    }
    this.drawAnsweredBy(st);
    this.reasoning.hidden = !st.reasoning;
    if (this.reasoningText.textContent !== st.reasoning) this.reasoningText.textContent = st.reasoning;
    clear(this.tools);
    // A tool still running when the turn ended (Stop, a failure) will not finish: it says it stopped.
    for (const t of st.tools) this.tools.appendChild(toolCard(t.status === 'running' && st.status !== 'streaming' ? { ...t, status: 'stopped' } : t));
    this.reply.dataset.status = st.status;
    this.reply.setAttribute('aria-busy', String(st.status === 'streaming'));
    clear(this.foot);
    // The server is away: the turn is kept as it was, and says why nothing moves (chat.ts settle).
    if (st.restarting) this.foot.appendChild(h('span', { class: 'typing', role: 'status', 'data-testid': 'turn-restarting' }, RESTARTING_TEXT));
    else if (st.status === 'streaming') this.foot.appendChild(h('span', { class: 'typing', 'data-testid': 'streaming' }, st.text ? 'Writing…' : 'Thinking…'));
    if (st.status === 'cancelled') this.showStop(st);
    if (st.status === 'error' && st.error) this.foot.appendChild(failureBox(st.error));
    const usage = usageLine(st.usage, st.tps);
    if (usage) this.foot.appendChild(h('span', { 'data-testid': 'usage' }, usage));
  }

  /** Who is asked, beside the role as the stored reply has it (messages.ts), from the turn's first frame. */
  private drawAnsweredBy(st: TurnState): void {
    const key = JSON.stringify(st.answeredBy ?? null);
    if (key === this.drawnBy) return;
    this.drawnBy = key;
    this.head.querySelector('[data-testid="answered-by"]')?.remove();
    const view = answeredByView(st.answeredBy);
    if (view) this.head.querySelector('.msg-role')!.after(view);
  }

  /** A stop, shown as a stored one: the reply (if anything came) marked Stopped, then the quiet line. */
  private showStop(st: TurnState): void {
    const head = this.reply.querySelector('.msg-head');
    if (head && !head.querySelector('[data-testid="stopped-badge"]')) head.appendChild(h('span', { class: 'badge', 'data-testid': 'stopped-badge' }, 'Stopped'));
    this.reply.hidden = !st.text && !st.reasoning && st.tools.length === 0;
    if (this.stopped) return;
    this.stoppedAt ||= Date.now() / 1000;
    this.stopped = stopMarker(st.stoppedBy ?? 'user', this.stoppedAt);
    this.el.appendChild(this.stopped);
  }
}
