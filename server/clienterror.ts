// Answers for requests Node's HTTP parser refuses before any handler runs (conflicting or malformed
// Content-Length, Transfer-Encoding it will not decode, header overflow, unknown methods, timeouts). Node's own
// answer is a bare "400 Bad Request" without our headers; the specification wants its JSON errors with the
// security headers and exactly one `Connection: close`. The socket is closed after the answer, so bytes after
// the refused head (perhaps a smuggled request) are never parsed.
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isClientDisconnect } from './errors.js';
import { analyzeFraming, framingRefusal, parseRawHead } from './framing.js';
import { securityHeaders } from './headers.js';
import { log } from './log.js';
import { isClosing, jsonResponse, markClosing } from './respond.js';

export const CLOSE_DEADLINE_MS = 2000;

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
  // One request gets one answer: once a response went out with `Connection: close`, whatever the parser
  // refuses after it (the unread body, bytes behind it) is dropped with the connection, never answered.
  if (isClosing(socket as Socket)) {
    socket.destroy();
    return;
  }
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  // A stalled request head is told why before the socket closes (its code also counts as a disconnect below).
  if (err.code && TIMEOUT_CODES.has(err.code) && socket.writable && !inFlight) {
    writeRefusal(socket, 408, 'Request timed out');
    return;
  }
  // HPE_INVALID_EOF_STATE: the peer closed in the middle of a request (a cancelled upload). Destroying the
  // socket is what tells the request's handler, through 'close', that its client is gone.
  if (isClientDisconnect(err) || err.code === 'HPE_INVALID_EOF_STATE' || !socket.writable) {
    log.debug('client error on a closed connection', err.code);
    socket.destroy();
    return;
  }
  // The parser can fail in a body after the handler already started answering this request (llhttp refuses a
  // non-chunked Transfer-Encoding only once the body begins): then that answer is the only one, and the
  // connection closes after it so nothing behind the refused bytes is ever parsed.
  if (inFlight && !inFlight.writableFinished) {
    if (!inFlight.headersSent) inFlight.shouldKeepAlive = false;
    inFlight.once('finish', () => socket.end());
    setTimeout(() => socket.destroy(), CLOSE_DEADLINE_MS * 5).unref();
    return;
  }
  const [status, message] = classifyParseError(err.code, err.rawPacket);
  log.debug(`refused malformed request (${err.code ?? 'unknown'}): ${status}`);
  writeRefusal(socket, status, message);
}

/**
 * Answer on a bare socket (no ServerResponse exists for bytes the parser refused) with the same JSON answer
 * every handler sends, plus exactly one `Connection: close`, then close.
 */
export function writeRefusal(socket: Duplex, status: number, message: string): void {
  markClosing(socket as Socket);
  const { headers: jsonHeaders, body } = jsonResponse({ error: message });
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
