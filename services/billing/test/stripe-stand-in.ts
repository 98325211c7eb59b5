import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';

/** One API call the stand-in received, as the stripe SDK sent it (form fields read into objects). */
export interface ReceivedCall {
  method: string;
  path: string;
  body: Record<string, unknown>;
  idempotencyKey: string | undefined;
}

/**
 * A local stand-in of the payment provider's HTTP API: the one third party the tests cannot run. It implements only
 * the endpoints billing calls (checkout sessions, billing portal sessions, meter events), answers in the provider's
 * shapes, and records what it received so a test can assert what billing asked for.
 */
export interface StripeStandIn {
  /** The base URL to give billing as STRIPE_API_URL. */
  url: string;
  calls: ReceivedCall[];
  /** Meter events the stand-in accepted, once each: the meter's total is what the customer is billed for. */
  meterEvents: Array<{ identifier: string; event_name: string; payload: Record<string, string>; timestamp: number }>;
  /** Calls to one path (e.g. '/v1/billing/meter_events'). */
  callsTo(path: string): ReceivedCall[];
  /** The next `n` calls to `path` answer 500, as an outage of the provider would. */
  failNext(path: string, n: number): void;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const calls: ReceivedCall[] = [];
  const meterEvents: StripeStandIn['meterEvents'] = [];
  const failures = new Map<string, number>();
  // As the provider does: a create repeated with the same Idempotency-Key gets the first answer again, nothing new.
  const replies = new Map<string, unknown>();
  const app = express();
  // The SDK sends form-encoded bodies with bracketed keys (metadata[tenant_id]); extended parsing reads them as objects.
  app.use(express.urlencoded({ extended: true }));
  app.use((req, res, next) => {
    calls.push({ method: req.method, path: req.path, body: (req.body ?? {}) as Record<string, unknown>, idempotencyKey: req.get('idempotency-key') });
    const left = failures.get(req.path) ?? 0;
    if (left > 0) {
      failures.set(req.path, left - 1);
      res.status(500).json({ error: { type: 'api_error', message: 'stand-in outage' } });
      return;
    }
    next();
  });

  app.post('/v1/checkout/sessions', (req, res) => {
    const sessionId = id('cs_test');
    res.json({
      id: sessionId,
      object: 'checkout.session',
      mode: req.body.mode,
      client_reference_id: req.body.client_reference_id ?? null,
      customer: req.body.customer ?? null,
      metadata: req.body.metadata ?? {},
      success_url: req.body.success_url,
      cancel_url: req.body.cancel_url,
      url: `https://checkout.stripe.test/c/pay/${sessionId}`,
    });
  });

  app.post('/v1/billing_portal/sessions', (req, res) => {
    const sessionId = id('bps');
    res.json({
      id: sessionId,
      object: 'billing_portal.session',
      customer: req.body.customer,
      return_url: req.body.return_url ?? null,
      url: `https://billing.stripe.test/p/session/${sessionId}`,
    });
  });

  app.post('/v1/billing/meter_events', (req, res) => {
    const key = req.get('idempotency-key');
    if (key && replies.has(key)) {
      res.json(replies.get(key));
      return;
    }
    const identifier = (req.body.identifier as string | undefined) ?? id('mev');
    if (meterEvents.some((e) => e.identifier === identifier)) {
      res.status(400).json({ error: { type: 'invalid_request_error', message: `A meter event with identifier ${identifier} already exists` } });
      return;
    }
    const event = {
      event_name: req.body.event_name as string,
      identifier,
      payload: (req.body.payload ?? {}) as Record<string, string>,
      timestamp: Number(req.body.timestamp ?? Math.floor(Date.now() / 1000)),
    };
    meterEvents.push(event);
    const reply = { object: 'billing.meter_event', created: Math.floor(Date.now() / 1000), livemode: false, ...event };
    if (key) replies.set(key, reply);
    res.json(reply);
  });

  app.use((req, res) => {
    res.status(404).json({ error: { type: 'invalid_request_error', message: `stand-in has no ${req.method} ${req.path}` } });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    meterEvents,
    callsTo: (path) => calls.filter((c) => c.path === path),
    failNext(path, n) {
      failures.set(path, n);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
