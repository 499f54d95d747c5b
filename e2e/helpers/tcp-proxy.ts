// A TCP relay in front of the server under test, so a spec can cut the browser's open connections the way a
// network drop would (the server sees its socket close; the browser sees the stream fail mid-way). The server
// accepts any loopback Host, so the page works the same through the relay's port.
import net from 'node:net';

export interface TcpProxy {
  /** `http://127.0.0.1:<port>` of the relay. */
  base: string;
  /** Destroy every open connection, both sides, as a network drop would. */
  cut(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    base: `http://127.0.0.1:${address.port}`,
    cut: () => {
      for (const s of open) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
