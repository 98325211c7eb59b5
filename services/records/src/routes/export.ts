import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { collectionName, recordStatus } from '@trove/contracts';
import { parseInput, requireScope, tenantOf, type Router } from '@trove/platform';
import type { ExportService } from '../export-service';
import { idParams } from './request-schemas';

/** Unknown query parameters are ignored, as caches and proxies add their own. */
const startQuery = z.object({
  collection: collectionName,
  format: z.enum(['csv', 'json']).default('json'),
  status: recordStatus.default('active'),
});

/** Asynchronous exports: start one, poll its status, download its file once completed. Admin scope throughout. */
export function exportRoutes(router: Router, exports: ExportService): void {
  router.post('/export', requireScope('admin'), async (req, res) => {
    const query = parseInput(startQuery, req.query, 'query');
    const job = await exports.create(tenantOf(req), query);
    res.status(202).json({ export_id: job.export_id, status: job.status });
  });

  // Before the /export/:id routes by habit; it has fewer segments, so it could not be taken for an id anyway.
  router.get('/export/active', requireScope('admin'), async (req, res) => {
    res.json(await exports.active(tenantOf(req)));
  });

  router.get('/export/:id/status', requireScope('admin'), async (req, res) => {
    const { id } = parseInput(idParams, req.params, 'path');
    res.json(await exports.status(tenantOf(req), id));
  });

  router.get('/export/:id/download', requireScope('admin'), async (req, res) => {
    const { id } = parseInput(idParams, req.params, 'path');
    const file = await exports.download(tenantOf(req), id);
    res.status(200).set({
      'content-type': file.contentType,
      'content-disposition': `attachment; filename="${file.filename}"`,
      'content-length': String(file.bytes),
    });
    try {
      // A part at a time (one read ahead), each written once the client has taken the one before: memory stays at a
      // couple of parts however large the file.
      await pipeline(Readable.from(file.parts, { highWaterMark: 1 }), res);
    } catch (err) {
      // A client that hangs up mid-download is not an error of the service.
      if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
      throw err;
    }
  });
}
