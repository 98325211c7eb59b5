import { createLogger } from '@trove/platform';
import { parsedPayloads } from './payloads';
import type { DeliveredEvent } from './port';

const event = (payload: unknown, offset: string): DeliveredEvent => ({ topic: 'usage.events', key: 'k', payload, offset, publishedAt: '2026-01-01T00:00:00Z' });

describe('parsedPayloads', () => {
  it('keeps what the reader reads, in order, and logs and skips each payload it cannot read', () => {
    const logger = createLogger({ level: 'silent' });
    const warn = jest.spyOn(logger, 'warn');
    const read = (p: unknown) => (typeof p === 'number' ? p * 2 : undefined);
    expect(parsedPayloads([event(1, '1'), event('x', '2'), event(3, '3')], read, logger)).toEqual([2, 6]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith({ offset: '2', key: 'k' }, 'skipping malformed usage.events event');
  });
});
