import { Registry } from 'prom-client';
import { FairScheduler, SchedulerRefusal } from './fair-scheduler';

/** A job that runs until the test lets it finish, recording when it started. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

function scheduler(overrides: Partial<ConstructorParameters<typeof FairScheduler>[0]> = {}) {
  return new FairScheduler({ name: 'test', concurrency: 2, maxQueuePerKey: 100, maxQueue: 1000, maxWaitMs: 10_000, ...overrides });
}

const tick = () => new Promise((r) => setImmediate(r));

describe('FairScheduler', () => {
  it('serves waiting keys in turn, so a key with one job waits for one turn behind a key with many', async () => {
    const s = scheduler({ concurrency: 1 });
    const order: string[] = [];
    const gates: Array<ReturnType<typeof gate>> = [];
    const job = (name: string) => async () => {
      order.push(name);
      const g = gate();
      gates.push(g);
      await g.opened;
    };
    const runs = ['a1', 'a2', 'a3', 'a4'].map((n) => s.run('A', job(n)));
    await tick();
    runs.push(s.run('B', job('b1')), s.run('C', job('c1')));
    runs.push(s.run('B', job('b2')));
    for (let i = 0; i < 7; i++) {
      await tick();
      gates[i]?.open();
      await tick();
    }
    await Promise.all(runs);
    // a1 was running; then each key with a job waiting gets a turn: A, B, C, A, B, A, A.
    expect(order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4']);
  });

  it('keeps one slot of its concurrency for other keys: one key runs at most concurrency - 1', async () => {
    const s = scheduler({ concurrency: 3 });
    const g = gate();
    const started: string[] = [];
    const job = (name: string) => async () => {
      started.push(name);
      await g.opened;
    };
    const runs = [s.run('A', job('a1')), s.run('A', job('a2')), s.run('A', job('a3'))];
    await tick();
    expect(started).toEqual(['a1', 'a2']);
    expect(s.load).toEqual({ queued: 1, running: 2, waitingKeys: 1 });
    runs.push(s.run('B', job('b1')));
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1']);
    g.open();
    await Promise.all(runs);
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
  });

  it("refuses a key's job past its queue bound, and sheds the longest queue's newest job when the scheduler is full", async () => {
    const s = scheduler({ concurrency: 1, maxQueuePerKey: 3, maxQueue: 4 });
    const g = gate();
    const held = s.run('A', () => g.opened);
    await tick();
    const outcomes: Record<string, string> = {};
    const track = (name: string, p: Promise<unknown>) =>
      p.then(
        () => (outcomes[name] = 'ran'),
        (err: SchedulerRefusal) => (outcomes[name] = `${err.reason}:${err.retryAfterSeconds}`),
      );
    const runs = [track('a2', s.run('A', async () => undefined)), track('a3', s.run('A', async () => undefined)), track('a4', s.run('A', async () => undefined))];
    runs.push(track('a5', s.run('A', async () => undefined)));
    await tick();
    expect(outcomes.a5).toMatch(/^queue_full:\d+$/);
    runs.push(track('b1', s.run('B', async () => undefined)));
    // Full: C's first job takes the place of A's newest, A's queue being the longest.
    runs.push(track('c1', s.run('C', async () => undefined)));
    await tick();
    expect(outcomes.a4).toMatch(/^shed:/);
    // A holds two, B one: B's second job sheds A's newest again.
    runs.push(track('b2', s.run('B', async () => undefined)));
    await tick();
    expect(outcomes.a3).toMatch(/^shed:/);
    // Now B's queue is the longest: its own next job is the one refused.
    runs.push(track('b3', s.run('B', async () => undefined)));
    await tick();
    expect(outcomes.b3).toMatch(/^shed:/);
    g.open();
    await held;
    await Promise.all(runs);
    expect(outcomes).toEqual({ a2: 'ran', a3: expect.stringMatching(/^shed/), a4: expect.stringMatching(/^shed/), a5: expect.stringMatching(/^queue_full/), b1: 'ran', b2: 'ran', b3: expect.stringMatching(/^shed/), c1: 'ran' });
    for (const refusal of [outcomes.a5, outcomes.a4, outcomes.a3, outcomes.b3]) expect(Number(refusal!.split(':')[1])).toBeGreaterThanOrEqual(1);
  });

  it('refuses a job that waited maxWaitMs, and runs none it refused', async () => {
    const s = scheduler({ concurrency: 1, maxWaitMs: 50 });
    const g = gate();
    const held = s.run('A', () => g.opened);
    let ran = false;
    const started = Date.now();
    await expect(
      s.run('B', async () => {
        ran = true;
      }),
    ).rejects.toMatchObject({ reason: 'timeout', retryAfterSeconds: expect.any(Number) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    g.open();
    await held;
    expect(ran).toBe(false);
    expect(s.load).toEqual({ queued: 0, running: 0, waitingKeys: 0 });
  });

  it('starts nothing before the event loop has taken in what arrived meanwhile, then serves in turn', async () => {
    const s = scheduler({ concurrency: 2 });
    const order: string[] = [];
    // Jobs that never wait for I/O: each would finish before anything queued after it was seen.
    const job = (name: string) => async () => {
      order.push(name);
    };
    const runs = [s.run('A', job('a1')), s.run('A', job('a2')), s.run('A', job('a3')), s.run('B', job('b1'))];
    expect(order).toEqual([]);
    await Promise.all(runs);
    expect(order).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('counts the keys that started a job lately, or have one now', async () => {
    const s = scheduler({ concurrency: 2 });
    await s.run('A', async () => undefined);
    const g = gate();
    const held = s.run('B', () => g.opened);
    await tick();
    expect(s.recentKeys(60_000)).toBe(2);
    await new Promise((r) => setTimeout(r, 30));
    // A's job ended 30 ms ago; B's is running.
    expect(s.recentKeys(10)).toBe(1);
    g.open();
    await held;
    expect(s.recentKeys(60_000)).toBe(2);
  });

  it('frees the slot of a job that failed, and passes its error on', async () => {
    const s = scheduler({ concurrency: 1 });
    await expect(s.run('A', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(s.run('A', async () => 'next')).resolves.toBe('next');
    expect(s.load).toEqual({ queued: 0, running: 0, waitingKeys: 0 });
  });

  it('reports queue length, running jobs, waits and refusals per scheduler', async () => {
    const registry = new Registry();
    const s = new FairScheduler({ name: 'search', concurrency: 1, maxQueuePerKey: 1, maxQueue: 10, maxWaitMs: 1_000, registry });
    new FairScheduler({ name: 'exports', concurrency: 1, maxQueuePerKey: 1, maxQueue: 10, maxWaitMs: 1_000, registry });
    const g = gate();
    const held = s.run('A', () => g.opened);
    await tick();
    const waiting = s.run('A', async () => undefined);
    await expect(s.run('A', async () => undefined)).rejects.toBeInstanceOf(SchedulerRefusal);
    const text = await registry.metrics();
    expect(text).toContain('trove_scheduler_queued{scheduler="search"} 1');
    expect(text).toContain('trove_scheduler_running{scheduler="search"} 1');
    expect(text).toContain('trove_scheduler_refused_total{scheduler="search",reason="queue_full"} 1');
    g.open();
    await Promise.all([held, waiting]);
    expect(await registry.metrics()).toContain('trove_scheduler_wait_seconds_count{scheduler="search"} 2');
  });
});
