import { FirstDeadLetters, Tally } from './tally';

describe('Tally', () => {
  it('passes reconciliation when every record is accepted, rejected or skipped and every write was confirmed', () => {
    const t = new Tally();
    t.submitted = 5;
    t.rejected = 1;
    t.written(['created', 'updated', 'skipped', 'created']);
    expect(t.summary()).toEqual({ submitted: 5, accepted: 3, rejected: 1, dedup_skipped: 1 });
    expect(t.reconciliationPassed()).toBe(true);
  });

  it('fails reconciliation when a chunk was not written, though its records count as rejected', () => {
    const t = new Tally();
    t.submitted = 3;
    t.written(['created']);
    t.unwritten(2);
    expect(t.summary()).toEqual({ submitted: 3, accepted: 1, rejected: 2, dedup_skipped: 0 });
    expect(t.reconciliationPassed()).toBe(false);
  });

  it('fails reconciliation when the counts do not add up', () => {
    const t = new Tally();
    t.submitted = 2;
    t.written(['created']);
    expect(t.reconciliationPassed()).toBe(false);
  });

  it('reports back-pressure when the largest indexing backlog seen is above the threshold', () => {
    const t = new Tally();
    t.observeBacklog(10);
    t.observeBacklog(60);
    t.observeBacklog(20);
    expect(t.backpressure(50)).toBe(true);
    expect(t.backpressure(60)).toBe(false);
  });
});

describe('FirstDeadLetters', () => {
  it('keeps the lowest record indexes whatever order they arrive in', () => {
    const first = new FirstDeadLetters(3);
    for (const i of [9, 4, 7, 1, 8, 2, 6, 0]) first.add({ record_index: i, error: 'e', record_data: {} });
    expect(first.list().map((l) => l.record_index)).toEqual([0, 1, 2]);
  });
});
