// Answers for requests Node's HTTP parser refuses before any handler runs (conflicting or malformed
// Content-Length, Transfer-Encoding it will not decode, header overflow, unknown methods, timeouts). Node's own
// answer is a bare "400 Bad Request" without our headers; the specification wants its JSON errors with the
// security headers and exactly one `Connection: close`. The socket is closed after the answer, so bytes after
// the refused head (perhaps a smuggled request) are never parsed.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isClientDisconnect } from '../core/errors.js';
import { analyzeFraming, framingRefusal, parseRawHead } from './framing.js';
import { securityHeaders } from './headers.js';
import { log } from '../core/log.js';
import { isClosing, markClosing, owedOn, whenIdle } from './connection.js';
import { errorResponse } from './respond.js';

export const CLOSE_DEADLINE_MS = 2000;
/** A refusal waiting behind owed answers gives up (and closes) after this: a stuck handler cannot pin it. */
export const OWED_ANSWERS_DEADLINE_MS = 60_000;

/** The status and error text for a refused request, judged from Node's error code and the raw bytes. */
export function classifyParseError(code: string | undefined, rawPacket: Buffer | undefined): [number, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'Request header fields too large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') return [408, 'Request timed out'];
  const head = parseRawHead(rawPacket);
  if (head) {
    const refusal = framingRefusal(analyzeFraming(head.rawHeaders));
    if (refusal) return refusal;
  }
  // `5, 5`, two identical lines, a tab-padded value: the specification reads them as one length, Node's parser
  // refuses them before any handler. The stricter reading stays (docs/API.md), with the specification's text.
  if (code === 'HPE_INVALID_CONTENT_LENGTH' || code === 'HPE_UNEXPECTED_CONTENT_LENGTH') return [400, 'Invalid Content-Length'];
  if (code === 'HPE_INVALID_METHOD') return [501, 'Unsupported method'];
  return [400, 'Bad request'];
}

type ParserError = Error & { code?: string; rawPacket?: Buffer };

const TIMEOUT_CODES = new Set(['ERR_HTTP_REQUEST_TIMEOUT', 'ERR_HTTP_HEADERS_TIMEOUT']);

export function handleClientError(err: ParserError, socket: Duplex): void {
  const sock = socket as Socket;
  // HPE_INVALID_EOF_STATE: the peer closed in the middle of a request (a cancelled upload). Destroying the
  // socket is what tells the request's handler, through 'close', that its client is gone. A stalled head's
  // timeout code also counts as a disconnect, so it is told apart first.
  const timedOut = err.code !== undefined && TIMEOUT_CODES.has(err.code);
  if (!socket.writable || (!timedOut && (isClientDisconnect(err) || err.code === 'HPE_INVALID_EOF_STATE'))) {
    log.debug('client error on a closed connection', err.code);
    socket.destroy();
    return;
  }
  const [status, message] = timedOut ? ([408, 'Request timed out'] as const) : classifyParseError(err.code, err.rawPacket);
  log.debug(`refused malformed request (${err.code ?? 'unknown'}): ${status}`);
  // Pipelined requests before the refused bytes are still owed their answers, in order: the refusal waits
  // its turn. One request gets one answer: once an answer said `Connection: close`, whatever came after the
  // request it answered (the unread body, a smuggled request) is dropped with the connection, never answered.
  if (owedOn(sock) > 0) {
    const giveUp = setTimeout(() => socket.destroy(), OWED_ANSWERS_DEADLINE_MS);
    giveUp.unref();
    whenIdle(sock, () => {
      clearTimeout(giveUp);
      refuseOrClose(socket, status, message);
    });
    return;
  }
  refuseOrClose(socket, status, message);
}

function refuseOrClose(socket: Duplex, status: number, message: string): void {
  if (isClosing(socket as Socket)) {
    // end, not destroy: the answer that said close may still be on its way out of the socket's buffer.
    socket.end();
    setTimeout(() => socket.destroy(), CLOSE_DEADLINE_MS).unref();
    return;
  }
  writeRefusal(socket, status, message);
}

/**
 * Answer on a bare socket (no ServerResponse exists for bytes the parser refused) with the same JSON answer
 * every handler sends, plus exactly one `Connection: close`, then close.
 */
export function writeRefusal(socket: Duplex, status: number, message: string): void {
  markClosing(socket as Socket);
  const { headers: jsonHeaders, body } = errorResponse(message);
  const headers: Record<string, string> = {
    ...jsonHeaders,
    ...securityHeaders(),
    'Content-Length': String(body.length),
    Connection: 'close',
  };
  const head =
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n';
  socket.on('error', (e) => log.debug('socket error after refusal', e));
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  setTimeout(() => socket.destroy(), CLOSE_DEADLINE_MS).unref();
}
