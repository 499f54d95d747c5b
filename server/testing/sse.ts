// A raw-socket reader for server-sent events: sends a GET, decodes the chunked body as it arrives and parses
// frames incrementally, so a test can wait for one frame, act, and read on. Every wait has a deadline.
import net from 'node:net';
import { TEST_TOKEN } from './harness.js';

export const SSE_DEADLINE_MS = 5_000;

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  /** Comment lines (without the leading `:`), e.g. ' heartbeat'. */
  comments: string[];
}

export interface SseStream {
  status: number;
  headers: Record<string, string>;
  /** Every block received so far (frames and comment-only blocks), in order. */
  blocks: SseFrame[];
  /** Blocks with an event. */
  frames(): SseFrame[];
  /** Resolves once a block satisfies `test` (checking those already received first). */
  until(test: (block: SseFrame) => boolean, deadlineMs?: number): Promise<SseFrame>;
  /** Resolves when the server ends the response (the terminating chunk) or closes. */
  ended(deadlineMs?: number): Promise<void>;
  close(): void;
}

function parseBlock(block: string): SseFrame {
  const frame: SseFrame = { comments: [] };
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comments.push(line.slice(1));
    else {
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'id' || name === 'event' || name === 'data') frame[name] = value;
    }
  }
  return frame;
}

/** Open `GET pathname` on a raw socket; resolves once the response head is in. */
export function openSse(port: number, pathname: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = Buffer.alloc(0);
    let head: { status: number; headers: Record<string, string> } | undefined;
    let body = '';
    let done = false;
    const blocks: SseFrame[] = [];
    const waiters = new Set<() => void>();
    const wake = (): void => {
      for (const w of [...waiters]) w();
    };
    const timer = setTimeout(() => {
      if (!head) {
        socket.destroy();
        reject(new Error('no response head'));
      }
    }, SSE_DEADLINE_MS);

    // Chunked transfer coding: size line, data, CRLF; a zero size ends the body.
    const decode = (): void => {
      for (;;) {
        const eol = raw.indexOf('\r\n');
        if (eol === -1) return;
        const size = parseInt(raw.subarray(0, eol).toString('latin1'), 16);
        if (size === 0) {
          done = true;
          return;
        }
        if (raw.length < eol + 2 + size + 2) return;
        body += raw.subarray(eol + 2, eol + 2 + size).toString('utf8');
        raw = raw.subarray(eol + 2 + size + 2);
      }
    };
    const parse = (): void => {
      for (let end = body.indexOf('\n\n'); end !== -1; end = body.indexOf('\n\n')) {
        blocks.push(parseBlock(body.slice(0, end)));
        body = body.slice(end + 2);
      }
    };

    const stream: SseStream = {
      status: 0,
      headers: {},
      blocks,
      frames: () => blocks.filter((b) => b.event !== undefined),
      until(test, deadlineMs = SSE_DEADLINE_MS) {
        return new Promise((res, rej) => {
          let seen = 0;
          const check = (): void => {
            for (; seen < blocks.length; seen++) {
              if (test(blocks[seen]!)) {
                cleanup();
                return res(blocks[seen]!);
              }
            }
            if (done) {
              cleanup();
              rej(new Error(`stream ended without the awaited frame; got ${JSON.stringify(blocks)}`));
            }
          };
          const t = setTimeout(() => {
            cleanup();
            rej(new Error(`no awaited frame within ${deadlineMs} ms; got ${JSON.stringify(blocks)}`));
          }, deadlineMs);
          const cleanup = (): void => {
            clearTimeout(t);
            waiters.delete(check);
          };
          waiters.add(check);
          check();
        });
      },
      ended(deadlineMs = SSE_DEADLINE_MS) {
        return new Promise((res, rej) => {
          const check = (): void => {
            if (!done) return;
            clearTimeout(t);
            waiters.delete(check);
            res();
          };
          const t = setTimeout(() => {
            waiters.delete(check);
            rej(new Error(`stream did not end within ${deadlineMs} ms`));
          }, deadlineMs);
          waiters.add(check);
          check();
        });
      },
      close: () => socket.destroy(),
    };

    socket.on('data', (chunk: Buffer) => {
      raw = Buffer.concat([raw, chunk]);
      if (!head) {
        const end = raw.indexOf('\r\n\r\n');
        if (end === -1) return;
        const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
        const hs: Record<string, string> = {};
        for (const l of lines.slice(1)) {
          const i = l.indexOf(':');
          hs[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
        }
        head = { status: Number(lines[0]!.split(' ')[1]), headers: hs };
        stream.status = head.status;
        stream.headers = hs;
        raw = raw.subarray(end + 4);
        clearTimeout(timer);
        if (hs['transfer-encoding'] !== 'chunked') {
          // A plain answer (404 JSON): its body is the whole rest.
          const length = Number(hs['content-length'] ?? 0);
          body = raw.subarray(0, length).toString('utf8');
          done = true;
          resolve(stream);
          return;
        }
        resolve(stream);
      }
      if (stream.headers['transfer-encoding'] === 'chunked') {
        decode();
        parse();
      }
      wake();
    });
    socket.on('close', () => {
      done = true;
      wake();
    });
    socket.on('error', (err) => {
      if (!head) reject(err);
    });
    const extra = Object.entries({ Authorization: `Bearer ${TEST_TOKEN}`, ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`GET ${pathname} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n${extra}\r\n`);
  });
}

/** The `id` of a frame as its seq number. */
export function seqOf(frame: SseFrame): number {
  return Number(frame.id?.split(':')[1]);
}
