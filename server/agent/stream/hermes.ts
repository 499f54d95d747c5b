// Layer 3, the Hermes dialect: `hermes.tool.progress` events → `tool` / `tool_complete` (with the duration it
// measured between them), and Hermes's `_thinking` pseudo-tool → reasoning.
import type { UpstreamEvent } from '../types.js';
import { str, type Json } from './openai.js';

export const TOOL_PROGRESS_EVENT = 'hermes.tool.progress';
/** Hermes reports the model's thinking as a pseudo-tool of this name: it is reasoning, not a tool. */
export const THINKING_TOOL = '_thinking';

interface RunningTool {
  name: string;
  preview: string;
  args: unknown;
  started: number;
}

export class HermesToolDecoder {
  /** A tool started or ended. */
  answered = false;
  private readonly tools = new Map<string, RunningTool>();
  private toolSeq = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  *progress(data: Json): Generator<UpstreamEvent> {
    const name = str(data.tool) ?? 'tool';
    const status = str(data.status) ?? '';
    const label = str(data.label) ?? name;
    if (name === THINKING_TOOL) {
      if (status === 'running' && label && label !== THINKING_TOOL) yield { kind: 'reasoning', text: label };
      return;
    }
    const args = data.args ?? {};
    if (status === 'running') {
      this.answered = true;
      const tid = str(data.toolCallId) || `${name}-${++this.toolSeq}`;
      this.tools.set(tid, { name, preview: label, args, started: this.now() });
      yield { kind: 'tool', name, preview: label, args, tid };
      return;
    }
    if (status === 'completed' || status === 'failed' || status === 'error') {
      this.answered = true;
      const tid = str(data.toolCallId) || [...this.tools.entries()].reverse().find(([, tool]) => tool.name === name)?.[0] || `${name}-${++this.toolSeq}`;
      const running = this.tools.get(tid);
      this.tools.delete(tid);
      const duration = running ? Math.round(this.now() - running.started) / 1000 : 0;
      const isError = status !== 'completed' || data.is_error === true;
      yield { kind: 'tool_complete', name, preview: running?.preview ?? label, args: running?.args ?? args, tid, duration, isError };
    }
  }
}
