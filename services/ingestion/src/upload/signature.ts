import { createHmac, timingSafeEqual } from 'node:crypto';

const FORM = /^sha256=([0-9a-fA-F]{64})$/;

/** The X-Webhook-Signature value for a body: `sha256=` and the hex HMAC-SHA256 of its raw bytes. */
export function webhookSignature(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Whether a webhook's signature header matches its raw body. The digests are compared in constant time; a header of
 * another form never reaches the comparison, and both sides are 32 bytes when it does.
 */
export function isValidWebhookSignature(secret: string, body: Buffer, header: string | undefined): boolean {
  const match = header === undefined ? null : FORM.exec(header.trim());
  if (!match) return false;
  const given = Buffer.from(match[1]!, 'hex');
  const expected = createHmac('sha256', secret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}
