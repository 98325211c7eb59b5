import { createServer, request, type OutgoingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { duplexPair, type Duplex, type Readable } from 'node:stream';

/**
 * A service of this process, looked up at each call: undefined until its module has been initialised (modules start
 * in dependency order, and a caller may be made before the service it calls) and once it has stopped.
 */
export type LocalApp = () => RequestListener | undefined;

/** Node's HTTP server of each app reached in process; it never listens, it only parses the in-memory connections. */
const servers = new WeakMap<RequestListener, Server>();

/** The app's side of every in-memory connection: a request on one came from this process. */
const inProcessSides = new WeakSet<object>();

/** Whether a request's socket is the app's side of an in-memory connection (a call from this process). */
export function isInProcessConnection(socket: object | undefined): boolean {
  return socket !== undefined && inProcessSides.has(socket);
}

/**
 * A connection to an app of this process made of an in-memory stream pair instead of a socket. The app gets a real
 * request and response from Node's HTTP server, so express, its body parsers and the identity check work exactly as
 * over the network, and bodies stream both ways with backpressure. (light-my-request was the first choice: given an
 * express app, it re-parents the request and response prototypes that every express app of the process shares, and
 * the next request a client sent to the gateway crashed the process.)
 */
export function inProcessConnection(app: RequestListener): Duplex {
  let server = servers.get(app);
  if (!server) {
    server = createServer(app);
    servers.set(app, server);
  }
  const [client, served] = duplexPair();
  inProcessSides.add(served);
  // A caller that gives up (a timeout) closes its side; the app's side goes too, so a request still in the app ends.
  client.once('close', () => served.destroy());
  served.once('close', () => client.destroy());
  server.emit('connection', served);
  return client;
}

export interface InProcessRequest {
  method: string;
  path: string;
  headers?: OutgoingHttpHeaders;
  /** Sent as it is; a stream is piped as the app reads it. */
  body?: string | Readable;
  signal?: AbortSignal;
}

/** One request to an app of this process over an in-memory connection; the answer's body is read whole, as text. */
export function requestInProcess(app: RequestListener, call: InProcessRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ method: call.method, path: call.path, headers: call.headers, createConnection: () => inProcessConnection(app), signal: call.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode ?? 502, text: Buffer.concat(chunks).toString('utf8') }));
      // Cut before its end (the app's side was destroyed): not an answer.
      res.once('aborted', () => reject(new Error('the answer was cut off')));
    });
    req.once('error', reject);
    if (call.body === undefined || typeof call.body === 'string') req.end(call.body);
    else {
      call.body.once('error', (err) => req.destroy(err));
      call.body.pipe(req);
    }
  });
}
