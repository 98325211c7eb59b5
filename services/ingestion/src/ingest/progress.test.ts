import { ProgressWriter, type ProgressSnapshot } from './progress';

const snapshot = (submitted: number, bytes: number | null = null): ProgressSnapshot => ({
  summary: { submitted, accepted: submitted, rejected: 0, dedup_skipped: 0 },
  bytes_read: bytes,
});
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ProgressWriter', () => {
  it('writes what changed, at most once per interval and one write at a time, and nothing once stopped', async () => {
    let current = snapshot(0, 0);
    const written: ProgressSnapshot[] = [];
    let writing = 0;
    let overlapping = false;
    const writer = new ProgressWriter(
      () => current,
      async (s) => {
        writing++;
        overlapping ||= writing > 1;
        await tick(30);
        written.push(s);
        writing--;
      },
      () => undefined,
      10,
    );
    writer.start();
    await tick(60);
    current = snapshot(5, 100);
    await tick(60);
    await writer.stop();
    const count = written.length;
    current = snapshot(9, 200);
    await tick(50);
    expect(written.length).toBe(count);
    expect(written).toEqual([snapshot(0, 0), snapshot(5, 100)]);
    expect(overlapping).toBe(false);
  });

  it('reports a failed write and writes the same snapshot again at the next turn', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const writer = new ProgressWriter(
      () => snapshot(1),
      async () => {
        if (++calls === 1) throw new Error('database away');
      },
      (err) => errors.push(err),
      10,
    );
    writer.start();
    await tick(80);
    await writer.stop();
    expect(errors).toEqual([new Error('database away')]);
    expect(calls).toBe(2);
  });

  it('waits, on stop, for a write under way', async () => {
    let done = false;
    const writer = new ProgressWriter(
      () => snapshot(1),
      async () => {
        await tick(50);
        done = true;
      },
      () => undefined,
      5,
    );
    writer.start();
    await tick(20);
    await writer.stop();
    expect(done).toBe(true);
  });
});
