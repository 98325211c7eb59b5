import { isValidWebhookSignature, webhookSignature } from './signature';

const body = Buffer.from('{"records":[{"name":"a"}]}');

describe('webhook signatures', () => {
  it('accepts the HMAC-SHA256 of the raw body in hex, either case', () => {
    const sig = webhookSignature('s3cret', body);
    expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(isValidWebhookSignature('s3cret', body, sig)).toBe(true);
    expect(isValidWebhookSignature('s3cret', body, `sha256=${sig.slice(7).toUpperCase()}`)).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['without the sha256= prefix', webhookSignature('s3cret', body).slice(7)],
    ['of another secret', webhookSignature('other', body)],
    ['truncated', webhookSignature('s3cret', body).slice(0, 40)],
    ['not hex', `sha256=${'z'.repeat(64)}`],
  ])('refuses a signature that is %s', (_what, header) => {
    expect(isValidWebhookSignature('s3cret', body, header)).toBe(false);
  });

  it('refuses a signature of other bytes, even the same JSON spaced differently', () => {
    const sig = webhookSignature('s3cret', '{"records": [{"name": "a"}]}');
    expect(isValidWebhookSignature('s3cret', body, sig)).toBe(false);
  });
});
