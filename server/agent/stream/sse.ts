// Layer 2 of the agent stream: lines → server-sent events (the WHATWG event-stream grammar). `data:` lines are
// joined with "\n", `event:` names the event, `id:` is kept, comments (`:`) and unknown fields are ignored, and a
// blank line dispatches what was collected (nothing when no `data:` came). The joined data is bounded, so a
// stream of data lines without a blank line cannot grow memory past one event.
import { AgentError } from '../types.js';
import { TOO_LONG_ANSWER_HINT } from '../upstream-errors.js';

/** UTF-16 units of one event's joined data (at most twice as many bytes): a chunk is a few hundred. */
export const MAX_EVENT_CHARS = 4 * 1024 * 1024;

export interface SseEvent {
  /** '' when the event had no `event:` field (the default, `message`, by another name). */
  event: string;
  data: string;
  id?: string;
}

export class SseDecoder {
  private event = '';
  private data: string[] = [];
  private dataChars = 0;
  private id: string | undefined;

  constructor(private readonly maxEventChars = MAX_EVENT_CHARS) {}

  /** The event a line completes (a blank line after `data:`), else undefined. */
  line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.dataChars += value.length + 1;
      if (this.dataChars > this.maxEventChars) {
        throw new AgentError('upstream_error', `The agent sent an event longer than ${this.maxEventChars / (1024 * 1024)} Mi characters.`, TOO_LONG_ANSWER_HINT);
      }
      this.data.push(value);
    } else if (field === 'event') this.event = value.trim();
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return undefined;
  }

  /** The stream ended: an event still being collected counts as complete (some servers omit the last blank line). */
  end(): SseEvent | undefined {
    return this.dispatch();
  }

  private dispatch(): SseEvent | undefined {
    const event = this.data.length > 0 ? { event: this.event, data: this.data.join('\n'), ...(this.id !== undefined ? { id: this.id } : {}) } : undefined;
    this.event = '';
    this.data = [];
    this.dataChars = 0;
    return event;
  }
}
