import { randomUUID } from 'node:crypto';
import { planChangeOf, usageEvent, usageFactOf, usagePeriodOf } from './events';

const tenant_id = randomUUID();
const at = '2025-03-31T23:59:59.000Z';

describe('usage.events payloads', () => {
  it('reads each kind of fact', () => {
    const facts = [
      { kind: 'searches', tenant_id, at, event_id: randomUUID(), period: '2025-03', count: 12 },
      { kind: 'upload', tenant_id, at, upload_id: randomUUID() },
      { kind: 'records', tenant_id, at, record_types: ['product'], created: 3 },
      { kind: 'requests', tenant_id, at, event_id: randomUUID(), period: '2025-03', count: 40 },
    ];
    for (const fact of facts) expect(usageEvent.parse(fact)).toEqual(fact);
  });

  it('refuses a searches fact without a count, an id or a YYYY-MM period', () => {
    const good = { kind: 'searches', tenant_id, at, event_id: randomUUID(), period: '2025-03', count: 1 };
    expect(usageEvent.safeParse({ ...good, count: 0 }).success).toBe(false);
    expect(usageEvent.safeParse({ ...good, event_id: undefined }).success).toBe(false);
    expect(usageEvent.safeParse({ ...good, period: '2025-13' }).success).toBe(false);
    expect(usageEvent.safeParse({ ...good, period: '2025-3' }).success).toBe(false);
  });

  it('refuses a requests fact without a count, an id or a YYYY-MM period', () => {
    const good = { kind: 'requests', tenant_id, at, event_id: randomUUID(), period: '2025-03', count: 1 };
    expect(usageEvent.safeParse({ ...good, count: 0 }).success).toBe(false);
    expect(usageEvent.safeParse({ ...good, event_id: undefined }).success).toBe(false);
    expect(usageEvent.safeParse({ ...good, period: '2025-13' }).success).toBe(false);
  });

  it('refuses a records fact that created nothing or names no record type', () => {
    const good = { kind: 'records', tenant_id, at, record_types: ['product'], created: 1 };
    expect(usageEvent.safeParse({ ...good, created: 0 }).success).toBe(false);
    expect(usageEvent.safeParse({ ...good, record_types: [] }).success).toBe(false);
  });

  it('refuses an unknown kind', () => {
    expect(usageEvent.safeParse({ kind: 'request', tenant_id, at, count: 1 }).success).toBe(false);
  });
});

describe('usageFactOf', () => {
  it('reads a fact with its tenant id in lower case, and nothing from a malformed one or one naming no tenant UUID', () => {
    const fact = { kind: 'upload', tenant_id: tenant_id.toUpperCase(), at, upload_id: 'u' };
    expect(usageFactOf(fact)).toEqual({ ...fact, tenant_id });
    expect(usageFactOf({ ...fact, tenant_id: 'acme' })).toBeUndefined();
    expect(usageFactOf({ ...fact, kind: 'nothing' })).toBeUndefined();
  });
});

describe('planChangeOf', () => {
  it('reads a plan change with its tenant id in lower case and its time as a Date, and nothing from a malformed one', () => {
    const event = { kind: 'plan_changed', tenant_id: tenant_id.toUpperCase(), plan: 'pro', changed_at: '2025-03-31T23:59:59.000Z' };
    expect(planChangeOf(event)).toEqual({ tenantId: tenant_id, plan: 'pro', changedAt: new Date('2025-03-31T23:59:59.000Z') });
    expect(planChangeOf({ ...event, tenant_id: 'acme' })).toBeUndefined();
    expect(planChangeOf({ ...event, plan: 'platinum' })).toBeUndefined();
    expect(planChangeOf({ ...event, changed_at: 'yesterday' })).toBeUndefined();
  });
});

describe('usagePeriodOf', () => {
  it('is the UTC month of the moment', () => {
    expect(usagePeriodOf(new Date('2025-03-31T23:59:59Z'))).toBe('2025-03');
    expect(usagePeriodOf(new Date('2025-04-01T00:30:00+02:00'))).toBe('2025-03');
  });
});
