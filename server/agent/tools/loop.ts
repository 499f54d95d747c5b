// The tool loop (docs/spec-notes.md, "Satchel's own tools"): a turn to a dialect that takes Satchel's tools is
// sent with them; when a streamed reply ends with calls naming them, Satchel runs them (executor.ts), sends the
// assistant message with its calls plus one `tool` message per call, and streams again, for at most
// MAX_TOOL_ROUNDS rounds; the next request asks for an answer (`tool_choice: none`). The turn manager sees one
// stream of UpstreamEvents: the rounds' text and reasoning, a `tool` / `tool_complete` pair per call (the cards,
// and the stored row's `tool_activity`), the usage summed. The calls and results of the rounds are not stored:
// the stored answer is its text and its cards, and the next turn's history is what the screen shows.
import { dialectOf } from '../dialect/index.js';
import type { BuildRequestInput } from '../turn-shapes.js';
import type { AgentConfig, ChatMessage, StreamTurn, ToolCall, TurnRequest, UpstreamEvent } from '../types.js';
import { MAX_TOOL_CALLS_PER_TURN, MAX_TOOL_RESULT_CHARS_PER_TURN, MAX_TOOL_ROUNDS } from './limits.js';
import { ToolsRefused } from './refusal.js';
import { SATCHEL_TOOL_NAMES, TOOL_SPECS } from './specs.js';
import { toolArgs, toolPreview } from './args.js';

/** What one call of a tool answered: the text sent back to the agent (redacted), and whether it was refused. */
export interface ToolResult {
  text: string;
  isError: boolean;
}

/** Runs Satchel's tools for one turn (executor.ts); never throws for anything the agent sent. */
export interface ToolRunner {
  run(name: string, args: string, signal: AbortSignal): Promise<ToolResult>;
}

/** What the turn manager is given for the tools (app.ts): the runner of a turn, and where a refusal is remembered. */
export interface TurnTools {
  /** Made at the turn's first call only: a turn without calls reads nothing. */
  runner(build: BuildRequestInput): ToolRunner;
  /** The conversation's connection refused a request with tools: remembered, so later turns go without (never rejects). */
  refused(connection: string | undefined): Promise<void>;
}

/** Between the text of one round and the next, so two rounds' sentences do not run together on the screen. */
export const ROUND_BREAK = '\n\n';
/** A call past MAX_TOOL_CALLS_PER_TURN is answered with this, not run. */
export const TOO_MANY_CALLS = `Not run: Satchel runs at most ${MAX_TOOL_CALLS_PER_TURN} tool calls in one turn; answer with what you have.`;
/** A call after the turn's results reached MAX_TOOL_RESULT_CHARS_PER_TURN is answered with this, not run. */
export const TOO_MUCH_READ = `Not run: this turn's tool results reached ${MAX_TOOL_RESULT_CHARS_PER_TURN.toLocaleString('en-US')} characters; answer with what you have.`;
/** Said as the answer when the last round, asked to answer, still only called tools. */
export const NO_ANSWER_AFTER_TOOLS = `(The agent kept calling Satchel's tools after ${MAX_TOOL_ROUNDS} rounds and gave no answer; ask again, or more precisely.)`;

/**
 * The turn's upstream stream: the plain one where no tools apply (Hermes, a connection with them off or that
 * refused them, an app without a runner), else the rounds of the loop.
 */
export function toolTurn(
  deps: { streamTurn: StreamTurn; tools?: TurnTools },
  config: AgentConfig,
  build: BuildRequestInput,
  request: TurnRequest,
  signal: AbortSignal,
): AsyncIterable<UpstreamEvent> {
  const { tools, streamTurn } = deps;
  if (!tools || config.satchelTools === false || !dialectOf(config.kind).takesSatchelTools) return streamTurn(config, request, signal);
  return rounds(streamTurn, tools, config, build, request, signal);
}

async function* rounds(
  streamTurn: StreamTurn,
  tools: TurnTools,
  config: AgentConfig,
  build: BuildRequestInput,
  first: TurnRequest,
  signal: AbortSignal,
): AsyncGenerator<UpstreamEvent> {
  let request: TurnRequest = { ...first, tools: [...TOOL_SPECS] };
  let runner: ToolRunner | undefined;
  let callsRun = 0;
  let resultChars = 0;
  let textShown = false;
  const usage = { inputTokens: 0, outputTokens: 0 };
  for (let round = 0; ; round++) {
    // The last round may not call again: the model answers with what the earlier rounds gave it.
    if (round >= MAX_TOOL_ROUNDS && request.tools) request = { ...request, toolChoice: 'none' };
    let held: ToolCall[] | undefined;
    let text = '';
    try {
      for await (const event of streamTurn(config, request, signal)) {
        if (event.kind === 'token') {
          if (!text && textShown) yield { kind: 'token', text: ROUND_BREAK };
          text += event.text;
        } else if (event.kind === 'usage') {
          usage.inputTokens += event.inputTokens;
          usage.outputTokens += event.outputTokens;
          yield { kind: 'usage', ...usage };
          continue;
        } else if (event.kind === 'tool_calls' && request.tools && event.calls.some((c) => SATCHEL_TOOL_NAMES.includes(c.function.name))) {
          // Run by Satchel; a call beside them naming another tool is answered as unknown. Calls naming none of
          // Satchel's are the reply's own, stored with it as before.
          held = event.calls;
          continue;
        } else if (event.kind === 'cut' && held) {
          // The arguments passed their bound: nothing is run, the calls that fitted are stored with the marker.
          yield { kind: 'tool_calls', calls: held };
          held = undefined;
        }
        yield event;
      }
    } catch (err) {
      // Refused before a byte of the answer came (an error status): remembered, and the same turn sent without.
      if (!(err instanceof ToolsRefused) || !request.tools) throw err;
      await tools.refused(build.session.connection);
      const { tools: _offered, toolChoice: _choice, ...without } = request;
      request = without;
      round--;
      continue;
    }
    if (!held) return;
    if (request.toolChoice === 'none') {
      if (!text) yield { kind: 'token', text: `${textShown ? ROUND_BREAK : ''}${NO_ANSWER_AFTER_TOOLS}` };
      return;
    }
    runner ??= tools.runner(build);
    const calls = withIds(held, round);
    const results: ChatMessage[] = [];
    for (const call of calls) {
      const { name, arguments: raw } = call.function;
      if (callsRun >= MAX_TOOL_CALLS_PER_TURN || resultChars >= MAX_TOOL_RESULT_CHARS_PER_TURN) {
        // Answered without a card: a model asking a thousand times gets a thousand sentences, not a thousand cards.
        results.push({ role: 'tool', tool_call_id: call.id, content: callsRun >= MAX_TOOL_CALLS_PER_TURN ? TOO_MANY_CALLS : TOO_MUCH_READ });
        continue;
      }
      callsRun++;
      const preview = toolPreview(name, raw);
      const args = toolArgs(raw);
      yield { kind: 'tool', name, preview, args, tid: call.id };
      const started = performance.now();
      const result = await runner.run(name, raw, signal);
      signal.throwIfAborted();
      yield { kind: 'tool_complete', name, preview, args, tid: call.id, duration: Math.round(performance.now() - started) / 1000, isError: result.isError };
      resultChars += result.text.length;
      results.push({ role: 'tool', tool_call_id: call.id, content: result.text });
    }
    const asked: ChatMessage = { role: 'assistant', content: text, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: c.function })) };
    request = { ...request, messages: [...request.messages, asked, ...results] };
    textShown ||= text.length > 0;
  }
}

/** Every call with an id of its own: a server that sends none (or the same twice) still gets each result matched. */
function withIds(calls: ToolCall[], round: number): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call, i) => {
    const id = call.id && !seen.has(call.id) ? call.id : `satchel_${round}_${i}`;
    seen.add(id);
    return { id, function: call.function };
  });
}
