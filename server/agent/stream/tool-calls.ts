// The OpenAI dialect's streamed `delta.tool_calls`, collected into whole calls (by `index`), under two bounds: the
// bytes of every call's id, name and arguments together, and the number of calls.
import type { ToolCall } from '../types.js';
import { ByteBudget } from './utf8.js';

/**
 * UTF-8 bytes of tool-call arguments one turn may bring, all its calls together. They are stored with the
 * answer and sent back to the agent with the history, so the bound is that of a reply (reply.ts
 * MAX_REPLY_BYTES): a tool writing a large file fits, an agent sending 30 MB in 0.7 s does not. Past it the
 * arguments are cut, the stream is no longer read, and the turn ends with what fitted (a `cut` event).
 */
export const MAX_TOOL_ARGUMENT_BYTES = 4 * 1024 * 1024;
/**
 * Tool calls one reply may bring. A model calls a handful at once; each call is an entry kept until the reply
 * ends, so an agent numbering a new call in every chunk would otherwise grow memory without growing the
 * argument bytes. Past it the reply is cut like an argument flood.
 */
export const MAX_TOOL_CALLS = 256;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export class ToolCallCollector {
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  private readonly budget: ByteBudget;

  constructor(readonly maxArgumentBytes = MAX_TOOL_ARGUMENT_BYTES) {
    this.budget = new ByteBudget(maxArgumentBytes);
  }

  /** A bound was passed: the calls so far are kept, nothing after is read. */
  get cut(): boolean {
    return this.budget.exhausted;
  }

  get size(): number {
    return this.calls.size;
  }

  add(deltas: unknown[]): void {
    for (const delta of deltas) {
      if (!isObject(delta)) continue;
      if (this.cut) return;
      const index = typeof delta.index === 'number' ? delta.index : this.calls.size;
      if (!this.calls.has(index) && this.calls.size >= MAX_TOOL_CALLS) {
        // One more call than a reply may bring: the bound is passed like an argument flood.
        this.budget.exhausted = true;
        return;
      }
      const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
      // Ids and names are stored and sent back with the history too: they share the arguments' bound. An id is
      // sent whole each time, not appended: the one it replaces is given back first.
      const id = str(delta.id);
      if (id) {
        this.budget.giveBack(call.id);
        call.id = this.budget.take(id);
      }
      const fn = isObject(delta.function) ? delta.function : {};
      const name = str(fn.name);
      if (name) call.name += this.budget.take(name);
      const args = str(fn.arguments);
      if (args) call.arguments += this.budget.take(args);
      this.calls.set(index, call);
    }
  }

  /** The calls in index order. */
  list(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({ id: call.id, function: { name: call.name, arguments: call.arguments } }));
  }
}
