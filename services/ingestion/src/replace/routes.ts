import { PORTAL_COLLECTION_REPLACE, type ReplaceStaging } from '@trove/contracts';
import { ERRORS, handle, identityOf, parseInput, requirePortalUser, validationError, type Router } from '@trove/platform';
import { answer, answerAccepted, type Request, type Response } from '../http';
import type { AsyncUpload, AsyncUploads } from '../ingest/async-uploads';
import { UploadAborted, type Ingestor } from '../ingest/ingestor';
import type { RecordsPort } from '../records';
import { prefersAsync } from '../upload/prefer';
import { ANY_FILES, asFileProblem, receiveSpooledFile, refuseOversizedFile } from '../upload/files';

/** A replace's file received, counted and staged: the upload that writes it into the staging generation. */
interface StagedReplace extends AsyncUpload {
  staging: ReplaceStaging;
}

/**
 * POST /portal/collections/{name}/replace: a file becomes a staging generation of the collection (blue-green
 * replace; records owns the staging, the status, the swap and the cancel). The file is received whole into a
 * temporary file and read twice: once to count its records, so the plan's limit is checked and the staging opened
 * before anything is written (402, 404, 409 leave nothing behind), then to write them into the staging generation,
 * before the answer or, asked to answer asynchronously (`Prefer: respond-async`), after a 202 that names the upload
 * and the staging.
 */
export function replaceRoutes(router: Router, ingestor: Ingestor, later: AsyncUploads, records: RecordsPort, maxBytes: number): void {
  handle(router, PORTAL_COLLECTION_REPLACE, requirePortalUser(), refuseOversizedFile(maxBytes), async (req, res) => {
    const { name } = parseInput(PORTAL_COLLECTION_REPLACE.params, req.params, 'path');
    const query = parseInput(PORTAL_COLLECTION_REPLACE.query, req.query, 'query');
    const receive = () => stageReplace(req, res, records, maxBytes, name, query);

    if (prefersAsync(req)) {
      let staging: ReplaceStaging | undefined;
      const uploadId = await later.accept(identityOf(req).tenantId, async () => {
        const staged = await receive();
        staging = staged.staging;
        return staged;
      });
      return answerAccepted(res, { upload_id: uploadId, status: 'processing', staging });
    }

    const { target, progress, job, staging } = await receive();
    try {
      const upload = await ingestor.begin(target, progress);
      answer(res, PORTAL_COLLECTION_REPLACE, { ...(await upload.run(job.items(), job.fileHash, job.beforeComplete)), staging });
    } catch (err) {
      const cause = err instanceof UploadAborted ? err.cause : err;
      await job.onFailure?.(cause);
      throw cause;
    } finally {
      await job.cleanup?.();
    }
  });
}

/**
 * Receives the replace's file, counts its records and opens the staging generation for them (records checks the plan
 * and the collection); answers the upload that writes them there. Once written (before the upload is complete), a
 * file not written whole gives the staging up (503), and a written one is marked finished with records (409 when the
 * replace was cancelled meanwhile); an upload that fails while writing gives the staging up too.
 */
async function stageReplace(
  req: Request,
  res: Response,
  records: RecordsPort,
  maxBytes: number,
  name: string,
  query: { record_type: string; source_name?: string; name_column?: string; record_tag?: string },
): Promise<StagedReplace> {
  const file = await receiveSpooledFile(maxBytes, ANY_FILES, req, res, {
    target: { collection: name, record_type: query.record_type, source_name: query.source_name },
    options: { name_column: query.name_column, record_tag: query.record_tag },
  });
  try {
    if (file.format === 'xml' && !file.options.record_tag) {
      throw validationError(['query', 'record_tag'], 'Field required for an XML file', 'missing', null);
    }
    let total = 0;
    let count = 0;
    for await (const item of file.items()) {
      total++;
      if (item.mapped.ok) count++;
    }
    if (count === 0) throw validationError(['body', 'file'], 'The file holds no valid records', 'value_error', file.fileName);
    const { identity, requestId } = file.target;
    const begun = await records.beginReplace(identity, name, count, requestId);
    const giveUp = () => records.abortReplace(identity, name, begun.generation, requestId);
    let finishing = false;
    return {
      staging: { generation: begun.generation, status: 'staging', collection: name },
      target: { ...file.target, generation: begun.generation },
      progress: { ...file.progress, recordsTotal: total },
      job: {
        items: () => file.items(),
        fileHash: () => file.hash,
        beforeComplete: async (result) => {
          finishing = true;
          // Part of the file not written (records unreachable, or the replace cancelled meanwhile): a staging that could
          // be swapped would hold part of the file, so it is given up and production stays as it is.
          if (!result.metadata.reconciliation_passed) {
            await giveUp();
            throw ERRORS.unavailable(`Part of the file could not be written, so the replace of ${name} was given up and the collection is unchanged; try again shortly`);
          }
          // A replace cancelled since the last chunk refuses this (409): the answer says so rather than report a staging.
          await records.finishReplace(identity, name, begun.generation, result, requestId);
        },
        onFailure: async () => {
          if (!finishing) await giveUp().catch(() => undefined);
        },
        cleanup: () => file.remove(),
      },
    };
  } catch (err) {
    await file.remove();
    throw asFileProblem(err, file);
  }
}
