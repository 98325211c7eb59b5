import net from 'node:net';

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Speaks just enough Redis to get a client ready (answers CLIENT SETINFO, INFO and PING once), then answers nothing: a server that
 * accepted a command and hangs, which only a command timeout can get a caller out of.
 */
export async function silentRedis(opts: { answerHandshake: boolean }): Promise<TestServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let answeredPing = false;
    socket.on('data', (chunk) => {
      if (!opts.answerHandshake) return;
      // Each command is an array whose first element is its name; the arguments do not matter here.
      for (const [, name] of chunk.toString('utf8').matchAll(/\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n/g)) {
        const command = name!.toLowerCase();
        if (command === 'client') socket.write('+OK\r\n');
        else if (command === 'info') socket.write('$9\r\nloading:0\r\n');
        else if (command === 'ping' && !answeredPing) {
          answeredPing = true;
          socket.write('+PONG\r\n');
        }
      }
    });
  });
  return listen(server, sockets);
}

/** Forwards to a real Redis until cut(); restore() opens the same port again, as a Redis coming back would. */
export async function cuttableProxy(upstreamUrl: string): Promise<TestServer & { cut(): Promise<void>; restore(): Promise<void> }> {
  const upstream = new URL(upstreamUrl);
  const sockets = new Set<net.Socket>();
  const make = () =>
    net.createServer((client) => {
      const remote = net.connect({ host: upstream.hostname, port: Number(upstream.port) || 6379 });
      for (const socket of [client, remote]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(remote).pipe(client);
      client.on('close', () => remote.destroy());
      remote.on('close', () => client.destroy());
    });
  let server = make();
  const handle = await listen(server, sockets);
  const port = Number(new URL(handle.url).port);
  return {
    url: handle.url,
    close: () => closeServer(server, sockets),
    cut: () => closeServer(server, sockets),
    async restore() {
      server = make();
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
  };
}

async function listen(server: net.Server, sockets: Set<net.Socket>): Promise<TestServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { url: `redis://127.0.0.1:${port}`, close: () => closeServer(server, sockets) };
}

function closeServer(server: net.Server, sockets: Set<net.Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}
