import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EXPORT_ACTIVE, EXPORT_DOWNLOAD, EXPORT_START, EXPORT_STATUS } from '@trove/contracts';
import { handle, parseInput, requireScope, serve, tenantOf, type Router } from '@trove/platform';
import type { ExportService } from './service';

/** Asynchronous exports: start one, poll its status, download its file once completed. Admin scope throughout. */
export function exportRoutes(router: Router, exports: ExportService): void {
  serve(router, EXPORT_START, [requireScope('admin')], async ({ query }, req) => {
    const job = await exports.create(tenantOf(req), query);
    return { export_id: job.export_id, status: job.status };
  });

  // Before the /export/:id routes by habit; it has fewer segments, so it could not be taken for an id anyway.
  serve(router, EXPORT_ACTIVE, [requireScope('admin')], (_input, req) => exports.active(tenantOf(req)));

  serve(router, EXPORT_STATUS, [requireScope('admin')], ({ params }, req) => exports.status(tenantOf(req), params.id));

  // The file is streamed, so the handler answers itself.
  handle(router, EXPORT_DOWNLOAD, requireScope('admin'), async (req, res) => {
    const { id } = parseInput(EXPORT_DOWNLOAD.params, req.params, 'path');
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
