// A loopback stand-in for an OpenAI-compatible `/audio/transcriptions` endpoint. It records every request
// (headers, multipart fields, the file's bytes) and answers as the test scripts it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  fields: Record<string, string>;
  file?: { field: string; filename: string; mimeType: string; bytes: Buffer };
}

export type FakeReply =
  | { status: number; body: string; contentType?: string }
  /** Send headers, then never finish the body. */
  | 'hang-body'
  /** Never answer at all. */
  | 'hang'
  /** Destroy the connection without a response. */
  | 'reset';

export interface FakeOpenAi {
  /** e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  requests: RecordedRequest[];
  reply: (req: RecordedRequest) => FakeReply;
  close(): Promise<void>;
}

/** Default: the transcript names the byte count and model, so a test can tell what arrived. */
export function defaultReply(req: RecordedRequest): FakeReply {
  const size = req.file?.bytes.length ?? 0;
  return { status: 200, body: JSON.stringify({ text: ` fake transcript of ${size} bytes via ${req.fields.model} ` }) };
}

function parse(req: http.IncomingMessage): Promise<RecordedRequest> {
  const record: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, fields: {} };
  return new Promise((resolve) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers });
    } catch {
      req.resume();
      req.on('end', () => resolve(record));
      return;
    }
    bb.on('field', (name, value) => {
      record.fields[name] = value;
    });
    bb.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        record.file = { field, filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) };
      });
    });
    bb.on('close', () => resolve(record));
    bb.on('error', () => resolve(record));
    req.pipe(bb);
  });
}

export async function startFakeOpenAi(reply: (req: RecordedRequest) => FakeReply = defaultReply): Promise<FakeOpenAi> {
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeOpenAi = {
    baseUrl: '',
    requests: [],
    reply,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer(async (req, res) => {
    const record = await parse(req);
    fake.requests.push(record);
    const answer = fake.reply(record);
    if (answer === 'hang') return;
    if (answer === 'reset') {
      req.socket.destroy();
      return;
    }
    if (answer === 'hang-body') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"te');
      return;
    }
    res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' });
    res.end(answer.body);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
