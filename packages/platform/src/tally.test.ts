import { createLogger } from './logger';
import { Tally } from './tally';

type Entry = { tenant: string; count: number };

function tally(write: (entries: Entry[]) => Promise<void>) {
  return new Tally<Entry>({ intervalMs: 60_000, logger: createLogger({ level: 'silent' }), what: 'test counts', write });
}

describe('Tally', () => {
  it('writes each key once per flush with its count, and nothing when nothing gathered', async () => {
    const written: Entry[][] = [];
    const t = tally(async (entries) => void written.push(entries));
    t.add('a', () => ({ tenant: 'a' }));
    t.add('a', () => ({ tenant: 'a' }));
    t.add('b', () => ({ tenant: 'b' }));
    await t.flush();
    await t.flush();
    expect(written).toEqual([[{ tenant: 'a', count: 2 }, { tenant: 'b', count: 1 }]]);
  });

  it('keeps the counts of a failed write and adds them to what gathered since', async () => {
    const written: Entry[][] = [];
    let fail = true;
    const t = tally(async (entries) => {
      if (fail) throw new Error('store down');
      written.push(entries);
    });
    t.add('a', () => ({ tenant: 'a' }));
    await t.flush();
    t.add('a', () => ({ tenant: 'a' }));
    fail = false;
    await t.stop();
    expect(written).toEqual([[{ tenant: 'a', count: 2 }]]);
  });
});
