import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { BSON, type Document } from 'mongodb';

/**
 * A MongoDB server as the official driver sees it on the wire, for one collection held in memory: no MongoDB server
 * can run on this machine (mongodb-memory-server downloads a binary), and MongoDB is a third party, so its tests talk
 * to this stand-in through the real driver. It speaks the handshake as OP_QUERY/OP_REPLY and everything after it as
 * OP_MSG, and answers hello, ping, find (filter on top-level fields with equality, $gt, $gte, $lt, $lte), getMore,
 * killCursors and endSessions; anything else is a command error. It records the find and getMore commands it got and
 * counts the connections it accepted. By default it is a standalone server; `hello` adds to or overrides its answer to
 * the handshake (a replica-set member's setName, hosts, primary).
 */
export interface MongoWireStandIn {
  /** A connection string for the driver (directConnection to this one server). */
  uri: string;
  /** The documents of the one collection, which a test may add to. */
  documents: Document[];
  /** Each find and getMore command received, as the driver sent it. */
  commands: Document[];
  /** Cursors still open (created by find, not yet exhausted or killed). */
  openCursors(): number;
  /** Connections accepted so far. */
  connections(): number;
  /** host:port it listens on. */
  address: string;
  close(): Promise<void>;
}

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;

type Comparable = number | string | Date;

function comparable(value: unknown): number | string | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number' || typeof value === 'string') return value;
  return undefined;
}

/** Whether a document matches a filter of top-level fields: a plain value, or an object of comparison operators. */
function matches(doc: Document, filter: Document): boolean {
  return Object.entries(filter).every(([field, condition]) => {
    const value = comparable(doc[field]);
    if (condition === null || typeof condition !== 'object' || condition instanceof Date) {
      return value !== undefined && value === comparable(condition);
    }
    return Object.entries(condition as Record<string, Comparable>).every(([op, operand]) => {
      const other = comparable(operand);
      if (value === undefined || other === undefined) return false;
      switch (op) {
        case '$gt':
          return value > other;
        case '$gte':
          return value >= other;
        case '$lt':
          return value < other;
        case '$lte':
          return value <= other;
        case '$eq':
          return value === other;
        default:
          throw new Error(`the stand-in does not know ${op}`);
      }
    });
  });
}

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.alloc(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(requestId, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

function opReply(responseTo: number, doc: Document): Buffer {
  const body = Buffer.from(BSON.serialize(doc));
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(0, 0); // responseFlags
  fields.writeBigInt64LE(0n, 4); // cursorID
  fields.writeInt32LE(0, 12); // startingFrom
  fields.writeInt32LE(1, 16); // numberReturned
  return Buffer.concat([header(16 + 20 + body.length, 0, responseTo, OP_REPLY), fields, body]);
}

function opMsg(responseTo: number, doc: Document): Buffer {
  const body = Buffer.from(BSON.serialize(doc));
  const flags = Buffer.alloc(5); // flagBits 0, then section kind 0
  return Buffer.concat([header(16 + 5 + body.length, 0, responseTo, OP_MSG), flags, body]);
}

/** The command document of an OP_QUERY (the handshake) or of an OP_MSG's body section. */
function commandOf(opCode: number, message: Buffer): Document {
  if (opCode === OP_QUERY) {
    let at = 20; // header, flags
    at = message.indexOf(0, at) + 1; // fullCollectionName
    at += 8; // numberToSkip, numberToReturn
    const size = message.readInt32LE(at);
    return BSON.deserialize(message.subarray(at, at + size));
  }
  if (opCode === OP_MSG) {
    const flagBits = message.readUInt32LE(16);
    const end = message.length - (flagBits & 1 ? 4 : 0);
    let command: Document | undefined;
    for (let at = 20; at < end; ) {
      const kind = message[at]!;
      if (kind === 0) {
        const size = message.readInt32LE(at + 1);
        command = BSON.deserialize(message.subarray(at + 1, at + 1 + size));
        at += 1 + size;
      } else {
        at += 1 + message.readInt32LE(at + 1); // a document sequence: not used by the commands answered here
      }
    }
    if (!command) throw new Error('OP_MSG without a body section');
    return command;
  }
  throw new Error(`the stand-in does not speak opCode ${opCode}`);
}

export async function startMongoWireStandIn(
  database: string,
  collection: string,
  hello: (address: string) => Document = () => ({}),
): Promise<MongoWireStandIn> {
  const documents: Document[] = [];
  const commands: Document[] = [];
  const cursors = new Map<bigint, Document[]>();
  let nextCursor = 1n;
  const ns = `${database}.${collection}`;
  const sockets = new Set<Socket>();
  let accepted = 0;
  let address = '';

  const batch = (id: bigint, size: number | undefined): { docs: Document[]; id: bigint } => {
    const rest = cursors.get(id) ?? [];
    const docs = rest.splice(0, size && size > 0 ? size : rest.length);
    if (rest.length === 0) {
      cursors.delete(id);
      return { docs, id: 0n };
    }
    return { docs, id };
  };

  const answer = (command: Document): Document => {
    const name = Object.keys(command)[0]!;
    switch (name) {
      case 'hello':
      case 'isMaster':
      case 'ismaster':
        return {
          helloOk: true,
          isWritablePrimary: true,
          ismaster: true,
          maxBsonObjectSize: 16 * 1024 * 1024,
          maxMessageSizeBytes: 48_000_000,
          maxWriteBatchSize: 100_000,
          localTime: new Date(),
          logicalSessionTimeoutMinutes: 30,
          connectionId: 1,
          minWireVersion: 0,
          maxWireVersion: 21,
          readOnly: false,
          ok: 1,
          ...hello(address),
        };
      case 'ping':
      case 'endSessions':
        return { ok: 1 };
      case 'find': {
        commands.push(command);
        if (command.find !== collection || command.$db !== database) return { ok: 0, errmsg: `no collection ${command.$db}.${command.find}`, code: 26 };
        const id = nextCursor++;
        cursors.set(id, documents.filter((d) => matches(d, (command.filter as Document) ?? {})));
        const first = batch(id, command.batchSize as number | undefined);
        return { cursor: { firstBatch: first.docs, id: BSON.Long.fromBigInt(first.id), ns }, ok: 1 };
      }
      case 'getMore': {
        commands.push(command);
        const id = BigInt((command.getMore as BSON.Long).toString());
        if (!cursors.has(id)) return { ok: 0, errmsg: `cursor id ${id} not found`, code: 43 };
        const next = batch(id, command.batchSize as number | undefined);
        return { cursor: { nextBatch: next.docs, id: BSON.Long.fromBigInt(next.id), ns }, ok: 1 };
      }
      case 'killCursors': {
        const killed = (command.cursors as BSON.Long[]).map((c) => BigInt(c.toString())).filter((id) => cursors.delete(id));
        return { cursorsKilled: killed.map((id) => BSON.Long.fromBigInt(id)), ok: 1 };
      }
      default:
        return { ok: 0, errmsg: `no such command: '${name}'`, code: 59 };
    }
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    accepted++;
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        const requestId = message.readInt32LE(4);
        const opCode = message.readInt32LE(12);
        const reply = answer(commandOf(opCode, message));
        socket.write(opCode === OP_QUERY ? opReply(requestId, reply) : opMsg(requestId, reply));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  address = `127.0.0.1:${port}`;
  return {
    uri: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    documents,
    commands,
    openCursors: () => cursors.size,
    connections: () => accepted,
    address,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
