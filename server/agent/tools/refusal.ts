// A server that does not take tools (an Ollama model without tool support, vLLM without
// --enable-auto-tool-choice, llama.cpp without --jinja) refuses the whole request with a 400 or 422 whose message
// names tools. Told apart here, once for Test (discover.ts) and for a turn (upstream.ts), so both remember it
// the same way and the turn is sent again without them.
import { AgentError } from '../types.js';
import { RETRY_HINT } from '../upstream-errors.js';

/** What a refusal about tools says, as the servers above word it ("does not support tools", "tool_choice"). */
const ABOUT_TOOLS = /\btools?\b|tool[_ ]?choice|tool[_ ]?call|function[_ ]?call/i;

/** Whether an error answer (its status, its message) is a refusal of the request's `tools`. */
export function refusesTools(status: number, message: string): boolean {
  return (status === 400 || status === 422) && ABOUT_TOOLS.test(message);
}

/** A turn's request was refused for its tools: the loop (tools/loop.ts) remembers it and sends it again without. */
export class ToolsRefused extends AgentError {
  constructor(readonly status: number) {
    super('upstream_error', `The agent refused Satchel's tools (${status}).`, RETRY_HINT);
    this.name = 'ToolsRefused';
  }
}
