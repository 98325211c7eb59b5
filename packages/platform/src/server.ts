import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting connections, lets requests in flight finish, and cuts what is left after the timeout. */
  close(timeoutMs?: number): Promise<void>;
}

export async function listen(handler: RequestListener, port: number, host = '0.0.0.0'): Promise<RunningServer> {
  const server = createServer(handler);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    close: (timeoutMs = 10_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
