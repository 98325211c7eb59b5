import { WEBHOOK_UPLOAD } from '@trove/contracts';
import { ERRORS, handle, requireScope, type Router } from '@trove/platform';
import { answer, type Request } from '../http';
import type { AsyncUploads } from '../ingest/async-uploads';
import type { Ingestor } from '../ingest/ingestor';
import { batchUpload, refuseOversizedBatch } from './batch';
import { isValidWebhookSignature } from './signature';

/**
 * Inbound webhook push: a batch body whose records carry source_type webhook. With WEBHOOK_SECRET set, the raw body
 * bytes must be signed (X-Webhook-Signature: sha256=<hex HMAC-SHA256>) before anything of them is read. A compressed
 * body (Content-Encoding gzip, deflate or br) is signed as it was before compression, the bytes its records are read from.
 */
export function webhookRoutes(router: Router, ingestor: Ingestor, later: AsyncUploads, secret: string | undefined): void {
  handle(
    router,
    WEBHOOK_UPLOAD,
    requireScope('upload'),
    refuseOversizedBatch,
    batchUpload(
      ingestor,
      later,
      WEBHOOK_UPLOAD,
      (req) => ({ sourceType: 'webhook', verify: signatureCheck(secret, req) }),
      (res, result) => answer(res, WEBHOOK_UPLOAD, result),
    ),
  );
}

/** With WEBHOOK_SECRET set, the raw body must carry a valid X-Webhook-Signature (401 otherwise). */
export function signatureCheck(secret: string | undefined, req: Request): (raw: Buffer) => void {
  return (raw) => {
    if (secret && !isValidWebhookSignature(secret, raw, req.get('x-webhook-signature'))) {
      throw ERRORS.unauthorized('Missing or invalid X-Webhook-Signature');
    }
  };
}
