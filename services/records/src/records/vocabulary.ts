import type { z } from 'zod';
import { foreignNames, olderLoc, withOlderNames, type Entity, type RecordDto, type VocabularyName } from '@trove/contracts';
import { ERRORS, HttpError, parseInput } from '@trove/platform';
import type { Handler } from '../shared/http';
import { entityExtras } from './entity';
import { CURRENT_WRITE, PIPELINE_WRITE, type WriteOrigin } from './writes';

type Source = 'body' | 'query';

/**
 * The two vocabularies of the record routes (docs/behaviour/older-vocabulary.md): the current one (`/records`,
 * collection, record_type, collection_data, indexing_status) and the older one (`/entities`, vertical, entity_type,
 * vertical_data, embedding_status, plus claim_status and data_quality_score). An older route is the current route's
 * handler run with OLDER: it reads requests in the older names (with its own declaration's schemas, @trove/contracts
 * ENTITY_CREATE and friends), answers in them and names its fields so in 422s. The names come from one table
 * (@trove/contracts, OLDER_NAMES). Each route registers from its declaration, so a search for a path finds its handler.
 */
export interface RecordVocabulary {
  /**
   * How writes that queue records for indexing go (creations, retry-reset): the current ones answer once search has
   * them, the older ones go through the pipeline's jobs and answer pending (docs/behaviour/older-vocabulary.md,
   * "The older pipeline").
   */
  queues: WriteOrigin;
  /**
   * Reads a request part sent in this vocabulary with its route's declared schema (an older route's reads the older
   * names into the current ones), answering it in the current names. A name of the other vocabulary is refused (422
   * extra_forbidden), in a query too, where other unknown parameters pass.
   */
  parse<S extends z.ZodType>(schema: S, input: unknown, source: Source): z.output<S>;
  /** Any answer (a list item, a count, part of a record) with its fields under this vocabulary's names. */
  names(answer: Record<string, unknown>): Record<string, unknown>;
  /** What this vocabulary shows of a record besides the current fields. */
  extras(dto: RecordDto): Record<string, unknown>;
  /** The handler, its 422s naming this vocabulary's fields (also those a service raises after parsing). */
  handler(handler: Handler): Handler;
}

/** A 422 for the first field of `input` that belongs to the other vocabulary. */
function refuseForeign(vocabulary: VocabularyName, input: unknown, source: Source): void {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return;
  const foreign = foreignNames(vocabulary);
  const issues = Object.keys(input)
    .filter((key) => foreign.has(key))
    .map((key) => ({ loc: [source, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: (input as Record<string, unknown>)[key] ?? null, ctx: {} }));
  if (issues.length > 0) throw ERRORS.validation(issues);
}

/** 422s raised while reading an older request: their locs are in the client's names already. */
const namedAsSent = new WeakSet<HttpError>();

/** A full record as the vocabulary shows it: its fields under the vocabulary's names, with its extras. */
export function recordIn(v: RecordVocabulary, dto: RecordDto): Record<string, unknown> {
  return { ...v.names(dto), ...v.extras(dto) };
}

export const CURRENT: RecordVocabulary = {
  queues: CURRENT_WRITE,
  parse: (schema, input, source) => {
    refuseForeign('current', input, source);
    return parseInput(schema, input, source);
  },
  names: (answer) => answer,
  extras: () => ({}),
  handler: (handler) => handler,
};

export const OLDER: RecordVocabulary = {
  queues: PIPELINE_WRITE,
  parse: (schema, input, source) => {
    try {
      refuseForeign('older', input, source);
      return parseInput(schema, input, source);
    } catch (err) {
      // These issues already name each field as the client sent it.
      if (err instanceof HttpError) namedAsSent.add(err);
      throw err;
    }
  },
  names: withOlderNames,
  extras: entityExtras,
  handler: (handler) => async (req, res, next) => {
    try {
      await handler(req, res, next);
    } catch (err) {
      if (!(err instanceof HttpError) || typeof err.detail === 'string' || namedAsSent.has(err)) throw err;
      throw ERRORS.validation(err.detail.map((issue) => ({ ...issue, loc: olderLoc(issue.loc) })));
    }
  },
};

/** A full record as the older vocabulary shows it (GET /entities/{id}): entitySchema's fields, which are named from the same table. */
export function entityOf(dto: RecordDto): Entity {
  return recordIn(OLDER, dto) as Entity;
}
