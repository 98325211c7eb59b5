import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase, type Database } from '@trove/db';
import { createLogger } from '@trove/platform';
import { createTestDatabase, type TestDatabase } from '@trove/testing';
import { idOf, makeEvents, Recorder, sleep, uniqueTopic, waitUntil } from './__tests__/support';
import { EmbeddedEventBus, LEASE_SECONDS } from './embedded';
import { thisProcess, type MemberIdentity } from './member';
import { busMigrations } from './migrations';
import type { DeliveredEvent } from './port';

/**
 * Who consumes a group when its holder's process dies or stops renewing. A "process" here is a bus on its own database
 * handle; it crashes when that handle closes under it: no stop, so its lease is never released, and no more renewals.
 */

const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'embedded-lease-test' });
const LEASE_MS = LEASE_SECONDS * 1000;
/** How soon a restarted process on the same host must have taken over: about one poll, not a lease. */
const RESTART_TAKEOVER_MS = 1_500;

interface Process {
  bus: EmbeddedEventBus;
  /** Dies as under kill -9: the database handle goes, the lease stays as it was. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

interface Backend {
  name: string;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  open(): Promise<Database>;
}

let server: TestDatabase;
let dataDir: string;
const backends: Backend[] = [
  {
    name: 'PostgreSQL',
    setUp: async () => {
      server = await createTestDatabase();
    },
    tearDown: () => server.drop(),
    open: () => openDatabase({ url: server.url, poolSize: 3 }),
  },
  {
    // PGlite allows one process: the restarted process opens the data directory the crashed one left.
    name: 'PGlite',
    setUp: async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'trove-lease-'));
    },
    tearDown: async () => rmSync(dataDir, { recursive: true, force: true }),
    open: () => openDatabase({ dataDir }),
  },
];

const running: Process[] = [];

async function startProcess(backend: Backend, member?: MemberIdentity): Promise<Process> {
  const database = await backend.open();
  await migrate(database, 'bus', busMigrations);
  const bus = new EmbeddedEventBus(database, logger, { member });
  let closed = false;
  const closeDatabase = async () => {
    if (closed) return;
    closed = true;
    await database.close();
  };
  const proc: Process = {
    bus,
    crash: closeDatabase,
    async stop() {
      await bus.close().catch(() => undefined);
      await closeDatabase();
    },
  };
  running.push(proc);
  return proc;
}

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

/** Counts the handlers of a group running at once, across every member. */
class Overlap {
  private inFlight = 0;
  max = 0;
  readonly handledBy = new Map<string, string[]>();

  recorder(member: string, during?: (batch: DeliveredEvent[]) => Promise<void>): Recorder {
    return new Recorder(async (batch) => {
      this.inFlight++;
      this.max = Math.max(this.max, this.inFlight);
      try {
        await during?.(batch);
        for (const e of batch) this.handledBy.set(idOf(e), [...(this.handledBy.get(idOf(e)) ?? []), member]);
      } finally {
        this.inFlight--;
      }
    });
  }
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop()));
});

describe.each(backends)('a restarted process on the same host, on $name', (backend) => {
  beforeAll(() => backend.setUp(), 30_000);
  afterAll(() => backend.tearDown(), 30_000);

  async function crashHolding(group: string, topic: string, member: MemberIdentity): Promise<Process> {
    const first = await startProcess(backend, member);
    const before = makeEvents(topic, 2, { label: 'before' });
    const recorder = new Recorder();
    await first.bus.subscribe({ group, topics: [topic], handler: recorder.handler });
    await first.bus.publish(before);
    await waitUntil('the first process handled its events', () => recorder.has(before.map(idOf)));
    await first.crash();
    return first;
  }

  it('takes the group over at once when the holder pid is no longer running', async () => {
    const topic = uniqueTopic('dead-pid');
    const group = `dead-pid-${topic}`;
    await crashHolding(group, topic, { ...thisProcess(), pid: deadPid(), incarnation: 'the crashed process' });

    const restarted = await startProcess(backend);
    const overlap = new Overlap();
    // Two members race to take over from the dead holder: one wins, and they never run at once.
    await restarted.bus.subscribe({ group, topics: [topic], handler: overlap.recorder('one').handler });
    await restarted.bus.subscribe({ group, topics: [topic], handler: overlap.recorder('two').handler });
    const after = makeEvents(topic, 6, { label: 'after' });
    await restarted.bus.publish(after.slice(0, 3));

    await waitUntil('the restarted process handled the new events', () => after.slice(0, 3).every((e) => overlap.handledBy.has(idOf(e))), RESTART_TAKEOVER_MS);
    await restarted.bus.publish(after.slice(3));
    await waitUntil('the restarted process handled the rest', () => overlap.handledBy.size === after.length);
    await sleep(200);
    expect([...overlap.handledBy.values()].every((members) => members.length === 1)).toBe(true);
    expect(overlap.max).toBe(1);
  });

  it('takes the group over at once from an earlier process with its own pid (a restarted container)', async () => {
    const topic = uniqueTopic('same-pid');
    const group = `same-pid-${topic}`;
    await crashHolding(group, topic, { ...thisProcess(), pidNamespace: 'pid:[the old container]', incarnation: 'the crashed process' });

    const restarted = await startProcess(backend);
    const recorder = new Recorder();
    await restarted.bus.subscribe({ group, topics: [topic], handler: recorder.handler });
    const after = makeEvents(topic, 3, { label: 'after' });
    await restarted.bus.publish(after);

    await waitUntil('the restarted process handled the new events', () => recorder.has(after.map(idOf)), RESTART_TAKEOVER_MS);
    expect(recorder.ids()).toEqual(after.map(idOf));
  });
});

describe('members of one group on PostgreSQL', () => {
  beforeAll(() => backends[0]!.setUp(), 30_000);
  afterAll(() => backends[0]!.tearDown(), 30_000);
  const backend = backends[0]!;
  const anotherHost = (): MemberIdentity => ({ ...thisProcess(), host: 'another-host/another-boot', incarnation: 'elsewhere' });

  it('replace a holder on another host that stops renewing within the lease time', async () => {
    const topic = uniqueTopic('other-host');
    const group = `other-host-${topic}`;
    const elsewhere = await startProcess(backend, anotherHost());
    const held = new Recorder();
    await elsewhere.bus.subscribe({ group, topics: [topic], handler: held.handler });
    const before = makeEvents(topic, 2, { label: 'before' });
    await elsewhere.bus.publish(before);
    await waitUntil('the holder handled its events', () => held.has(before.map(idOf)));
    const standby = await startProcess(backend);
    const replacement = new Recorder();
    await standby.bus.subscribe({ group, topics: [topic], handler: replacement.handler });

    await elsewhere.crash();
    const crashedAt = Date.now();
    const after = makeEvents(topic, 3, { label: 'after' });
    await standby.bus.publish(after);

    await waitUntil('the standby member took over', () => replacement.has(after.map(idOf)), LEASE_MS + 2_000);
    expect(Date.now() - crashedAt).toBeLessThan(LEASE_MS + 2_000);
    expect(replacement.ids()).toEqual(after.map(idOf));
  }, 30_000);

  it('never run two live members at once, though the holder idles and works longer than a lease', async () => {
    const topic = uniqueTopic('exclusive');
    const group = `exclusive-${topic}`;
    const overlap = new Overlap();
    const slow = makeEvents(topic, 1, { label: 'slow' })[0]!;
    const slowBatch = async (batch: DeliveredEvent[]) => {
      if (batch.some((e) => idOf(e) === idOf(slow))) await sleep(LEASE_MS + 1_000);
    };
    // Live members on this host (another pid that is running: the test runner's parent) and on another host.
    const sameHost = await startProcess(backend, { ...thisProcess(), pid: process.ppid, incarnation: 'a live neighbour' });
    const otherHost = await startProcess(backend, anotherHost());
    const here = await startProcess(backend);
    await sameHost.bus.subscribe({ group, topics: [topic], handler: overlap.recorder('same host', slowBatch).handler });
    await otherHost.bus.subscribe({ group, topics: [topic], handler: overlap.recorder('other host', slowBatch).handler });
    await here.bus.subscribe({ group, topics: [topic], handler: overlap.recorder('here', slowBatch).handler });

    const first = makeEvents(topic, 6, { label: 'first', keys: ['a', 'b'] });
    for (let i = 0; i < first.length; i += 2) await here.bus.publish(first.slice(i, i + 2));
    await waitUntil('the first events were handled', () => overlap.handledBy.size === first.length);
    await sleep(LEASE_MS + 2_000);
    await here.bus.publish([slow]);
    await sleep(200);
    const later = makeEvents(topic, 4, { label: 'later' });
    await here.bus.publish(later);
    await waitUntil('every event was handled', () => overlap.handledBy.size === first.length + 1 + later.length, LEASE_MS + 10_000);
    await sleep(500);

    expect(overlap.max).toBe(1);
    const handlers = [...overlap.handledBy.values()];
    expect(handlers.every((members) => members.length === 1)).toBe(true);
    // The holder kept the group throughout: idle and in a batch longer than the lease, nobody took it.
    expect(new Set(handlers.flat()).size).toBe(1);
  }, 60_000);
});
