import { createReadStream } from 'node:fs';
import { PORTAL_COLLECTION_REPLACE, type ReplaceStaging } from '@trove/contracts';
import { ERRORS, handle, parseInput, requirePortalUser, validationError, type Router } from '@trove/platform';
import { answer } from '../http';
import type { Ingestor, UploadResult } from '../ingest/ingestor';
import type { RecordsPort } from '../records';
import { ANY_FILES, ingestFile, refuseOversizedFile, type ReceivedUpload } from '../upload/files';
import { spoolToTempFile } from '../upload/multipart';

/**
 * POST /portal/collections/{name}/replace: a file becomes a staging generation of the collection (blue-green
 * replace; records owns the staging, the status, the swap and the cancel). The file is kept in a temporary file and
 * read twice: once to count its records, so the plan's limit is checked and the staging opened before anything is
 * written (402, 404, 409 leave nothing behind), then to write them into the staging generation.
 */
export function replaceRoutes(router: Router, ingestor: Ingestor, records: RecordsPort, maxBytes: number): void {
  handle(router, PORTAL_COLLECTION_REPLACE, requirePortalUser(), refuseOversizedFile(maxBytes), async (req, res) => {
    const { name } = parseInput(PORTAL_COLLECTION_REPLACE.params, req.params, 'path');
    const query = parseInput(PORTAL_COLLECTION_REPLACE.query, req.query, 'query');
    let staging: ReplaceStaging | undefined;

    const run = async (upload: ReceivedUpload): Promise<UploadResult> => {
      if (upload.format === 'xml' && !upload.options.record_tag) {
        throw validationError(['query', 'record_tag'], 'Field required for an XML file', 'missing', null);
      }
      const spool = await spoolToTempFile(upload.file.content);
      try {
        let count = 0;
        for await (const item of upload.items(createReadStream(spool.path))) if (item.mapped.ok) count++;
        if (count === 0) throw validationError(['body', 'file'], 'The file holds no valid records', 'value_error', upload.file.fileName);
        const { identity, requestId } = upload.target;
        const begun = await records.beginReplace(identity, name, count, requestId);
        staging = { generation: begun.generation, status: 'staging', collection: name };
        const giveUp = () => records.abortReplace(identity, name, begun.generation, requestId);
        const result = await ingestor
          .ingest({ ...upload.target, generation: begun.generation }, upload.items(createReadStream(spool.path)), upload.file.hash)
          .catch(async (err: unknown) => {
            await giveUp().catch(() => undefined);
            throw err;
          });
        // Part of the file not written (records unreachable, or the replace cancelled meanwhile): a staging that could
        // be swapped would hold part of the file, so it is given up and production stays as it is.
        if (!result.metadata.reconciliation_passed) {
          await giveUp();
          throw ERRORS.unavailable(`Part of the file could not be written, so the replace of ${name} was given up and the collection is unchanged; try again shortly`);
        }
        // A replace cancelled since the last chunk refuses this (409): the answer says so rather than report a staging.
        await records.finishReplace(identity, name, begun.generation, result, requestId);
        return result;
      } finally {
        await spool.remove();
      }
    };

    const result = await ingestFile(ingestor, maxBytes, ANY_FILES, req, res, {
      target: { collection: name, record_type: query.record_type, source_name: query.source_name },
      options: { name_column: query.name_column, record_tag: query.record_tag },
      run,
    });
    answer(res, PORTAL_COLLECTION_REPLACE, { ...result, staging });
  });
}
