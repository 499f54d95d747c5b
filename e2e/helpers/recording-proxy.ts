// An HTTP relay in front of an agent (the real Hermes gateway, or any server) that keeps every request it passes
// on, body and all, so a spec can read what Satchel sent to an agent it does not control. Responses stream back
// as they come (a turn's server-sent events are not held).
import http from 'node:http';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The body as sent (text). */
  body: string;
}

export interface RecordingProxy {
  /** `http://127.0.0.1:<port>`: give it to Satchel as the agent's address. */
  baseUrl: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/** A request body larger than this is refused (Satchel's turns are far smaller). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const to = new URL(target);
  const requests: ProxiedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: body.toString('utf8') });
      const upstream = http.request(
        { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
