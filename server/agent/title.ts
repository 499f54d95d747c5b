// A session's title (docs/spec-notes.md, "Chat: the session's title"): derived from the first message, then,
// from a plain OpenAI-compatible server only, asked of the agent in the background. The derived title is given
// at once; such a server is then asked, through the same upstream code as a turn, with a small prompt and a
// short deadline: one completion, no tools, no session. Hermes' gateway is never asked: every request to it is
// a whole agent run (its tools offered, a session created in its database), so its titles stay derived.
// Titles are plain text: Markdown's marks are taken out of both.
import { redact } from '../redact/index.js';
import { abortable } from './abortable.js';
import type { AgentConfig, StreamTurn, TurnRequest } from './types.js';
import { dialectOf } from './dialect/index.js';

export const TITLE_MAX_CHARS = 60;
export const UNTITLED = 'Untitled';
export const TITLE_PROMPT = 'Give this conversation a title of at most 6 words. Answer with the title only.';
/** The agent has this long to answer; after it, the derived title simply stays. */
export const TITLE_DEADLINE_MS = 20_000;
/** How much of the first message goes into the title request: its start says what the conversation is about. */
export const TITLE_MESSAGE_CHARS = 1_500;
/** How much of the reply goes into it. */
export const TITLE_REPLY_CHARS = 500;
/** Reading stops here: a title is a few words, and a model that rambles is not answering the question. */
export const TITLE_ANSWER_MAX_CHARS = 1_000;

/** Whether a title is asked of this agent (its dialect's policy): not of Hermes' gateway, where any request runs the agent with tools. */
export function asksAgentForTitle(config: Pick<AgentConfig, 'kind'>): boolean {
  return dialectOf(config.kind).asksForTitle;
}

/** A line's block marks: a heading's #s, a quote's >, a list's bullet. */
const LINE_MARKS = /^\s{0,3}(?:#{1,6}|>|[-*+])\s+/;

/**
 * Text as a person reads it once Markdown is rendered: no heading, quote or bullet marks, links as their text,
 * no emphasis, strikethrough or code marks (`**Plan**` is `Plan`). Underscores inside words stay (snake_case).
 */
export function withoutMarkdown(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(LINE_MARKS, ''))
    .join('\n')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/(^|[^\w*])([*_])(?=\S)([\s\S]*?\S)\2(?![\w*])/g, '$1$3')
    .replace(/\*\*+|~~+|`+/g, '');
}

/** The first message, plain, on one line, cut at a word near TITLE_MAX_CHARS. */
export function titleFrom(text: string): string {
  const line = withoutMarkdown(text).replace(/\s+/g, ' ').trim();
  if (line.length <= TITLE_MAX_CHARS) return line;
  const cut = line.slice(0, TITLE_MAX_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const QUOTES = `"'\`“”‘’«»*_#`;
const EDGE_QUOTES = new RegExp(`^[${QUOTES}\\s]+|[${QUOTES}\\s]+$`, 'g');

/**
 * What the agent answered, as a title: its first non-empty line, without a reasoning block, a "Title:" label,
 * the quotes or Markdown around it, or a closing full stop; redacted; at most TITLE_MAX_CHARS. Undefined when
 * nothing is left.
 */
export function cleanTitle(answer: string): string | undefined {
  const visible = answer.replace(/<think>[\s\S]*?(<\/think>|$)/gi, '');
  const line = visible.split(/\r?\n/).find((l) => l.trim()) ?? '';
  const title = withoutMarkdown(line)
    .replace(EDGE_QUOTES, '')
    .replace(/^title\s*:\s*/i, '')
    .replace(EDGE_QUOTES, '')
    .replace(/[.。]+$/, '')
    .replace(/[\u0000-\u001f\u007f]/g, ' ');
  const clean = titleFrom(redact(title));
  return clean ? clean : undefined;
}

function excerpt(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * The title request: one user message (every server takes that, where some refuse a system role). No session
 * id, so Hermes' gateway gets no X-Hermes-Session-Id and keeps this exchange out of the conversation's history.
 */
export function titleRequest(firstMessage: string, reply: string, model?: string): TurnRequest {
  const content = `${TITLE_PROMPT}\n\nUser: ${excerpt(firstMessage.trim(), TITLE_MESSAGE_CHARS)}\n\nAssistant: ${excerpt(reply.trim(), TITLE_REPLY_CHARS)}`;
  return { messages: [{ role: 'user', content }], ...(model ? { model } : {}) };
}

/** Whether an upstream request is a title request (test agents answer those apart from turns). */
export function isTitleRequest(messages: readonly { content?: unknown }[] | undefined): boolean {
  const first = messages?.[0]?.content;
  return typeof first === 'string' && first.startsWith(TITLE_PROMPT);
}

/**
 * Ask the agent for a title; undefined when its answer holds none, or when this agent is not asked (Hermes'
 * gateway: asksAgentForTitle), without a request. Throws what the upstream throws.
 */
export async function askTitle(
  streamTurn: StreamTurn,
  config: AgentConfig,
  input: { firstMessage: string; reply: string; model?: string },
  signal: AbortSignal,
): Promise<string | undefined> {
  if (!asksAgentForTitle(config)) return undefined;
  let answer = '';
  for await (const event of abortable(streamTurn(config, titleRequest(input.firstMessage, input.reply, input.model), signal), signal)) {
    if (event.kind !== 'token') continue;
    answer += event.text;
    if (answer.length >= TITLE_ANSWER_MAX_CHARS) break;
  }
  signal.throwIfAborted();
  return cleanTitle(answer);
}
