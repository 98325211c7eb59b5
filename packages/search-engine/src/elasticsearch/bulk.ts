import type { estypes } from '@elastic/elasticsearch';
import { changeProblem } from '../documents';
import type { ApplyOutcome, IndexChange } from '../port';
import type { Indexes } from './mappings';
import { documentId, generationId, toStored, tombstoneOf } from './source';

/** What the engine holds before a batch: read with one realtime mget. */
export interface HeldState {
  /** Per document id: the stored version, whether it is a tombstone, and whether the stored document is public. */
  documents: Map<string, Held>;
  /** Per generation id: the collection's active generation. */
  generations: Map<string, number>;
}

export interface Held {
  version: number;
  removed: boolean;
  public: boolean;
}

/** A collection whose active generation this batch raises. */
export interface Raise {
  tenant_id: string;
  collection: string;
  generation: number;
}

/** One bulk action and the change it writes for. */
export interface PlannedAction {
  change: number;
  role: 'private' | 'public';
}

export interface BulkPlan {
  /** Action and source lines for client.bulk; empty when every change is refused or already held. */
  operations: Array<estypes.BulkOperationContainer | object>;
  /** One entry per action, in the order of the response's items. */
  actions: PlannedAction[];
  /** Outcomes known without writing: malformed changes (failed) and versions already held (indexed). */
  settled: Map<number, ApplyOutcome>;
  raises: Raise[];
}

/** The ids an mget must read before planning: each record's stored document and each collection's generation. */
export function lookupsOf(changes: IndexChange[], indexes: Indexes): estypes.MgetOperation[] {
  const docs = new Map<string, estypes.MgetOperation>();
  for (const change of changes) {
    if (changeProblem(change)) continue;
    const { tenant_id, record_id } = change.op === 'upsert' ? change.document : change;
    const id = documentId(tenant_id, record_id);
    docs.set(`d ${id}`, { _index: indexes.records, _id: id, routing: tenant_id, _source: ['visibility', 'tombstone'] });
    if (change.op === 'upsert') {
      const gid = generationId(tenant_id, change.document.collection);
      docs.set(`g ${gid}`, { _index: indexes.generations, _id: gid, _source: ['active_generation'] });
    }
  }
  return [...docs.values()];
}

export function heldStateOf(response: estypes.MgetResponse<Record<string, unknown>>, indexes: Indexes): HeldState {
  const held: HeldState = { documents: new Map(), generations: new Map() };
  for (const item of response.docs) {
    if ('error' in item) throw new Error(`reading ${item._id} failed: ${reasonOf(item.error)}`);
    if (!item.found) continue;
    if (item._index === indexes.generations) {
      const generation = Number(item._source?.active_generation);
      if (Number.isFinite(generation)) held.generations.set(item._id, generation);
    } else {
      held.documents.set(item._id, {
        version: item._version ?? 0,
        removed: item._source?.tombstone === true,
        public: item._source?.visibility === 'public',
      });
    }
  }
  return held;
}

/**
 * The bulk request for a batch. Every write to a document carries the record version as an external version, so
 * Elasticsearch itself refuses an older version even when two writers race; the held state only spares the request
 * work it would refuse, and tells which documents may sit in the public index.
 *
 * A collection's active generation is the highest of what is held and what the batch's changes knew; a document is
 * searchable when active and of that generation. A searchable public document is indexed into the public index; any
 * other document that was public is deleted from it (with its version, so a late older delete cannot remove a newer
 * copy). A removal writes a tombstone into the records index instead of deleting: a deletion's own tombstone expires
 * after index.gc_deletes, after which a late older upsert would bring the record back. A removal carries
 * `external_gte`, so it also takes out a record stored with the same version.
 */
export function planBulk(changes: IndexChange[], held: HeldState, indexes: Indexes): BulkPlan {
  const plan: BulkPlan = { operations: [], actions: [], settled: new Map(), raises: [] };
  const active = new Map(held.generations);
  const raised = new Map<string, Raise>();
  for (const change of changes) {
    if (change.op !== 'upsert' || changeProblem(change)) continue;
    const { tenant_id, collection } = change.document;
    const gid = generationId(tenant_id, collection);
    const known = active.get(gid);
    if (known === undefined || change.active_generation > known) {
      active.set(gid, change.active_generation);
      raised.set(gid, { tenant_id, collection, generation: change.active_generation });
    }
  }
  plan.raises = [...raised.values()];

  const documents = new Map(held.documents);
  changes.forEach((change, i) => {
    const problem = changeProblem(change);
    if (problem) {
      const { record_id, version } = change.op === 'upsert' ? (change.document ?? {}) : change;
      plan.settled.set(i, { record_id: String(record_id ?? ''), version: Number(version ?? 0), status: 'failed', error: problem });
      return;
    }
    const { tenant_id, record_id, version } = change.op === 'upsert' ? change.document : change;
    const id = documentId(tenant_id, record_id);
    const previous = documents.get(id);
    // A removal announced with the record's last version still takes it out, as in the PostgreSQL engine.
    const takesTie = change.op === 'remove' && previous !== undefined && !previous.removed;
    if (previous && (previous.version > version || (previous.version === version && !takesTie))) {
      plan.settled.set(i, { record_id, version, status: 'indexed' });
      return;
    }
    const version_type = change.op === 'remove' ? ('external_gte' as const) : ('external' as const);
    const write = { _id: id, routing: tenant_id, version, version_type };
    let isPublic = false;
    if (change.op === 'upsert') {
      const d = change.document;
      const searchable = d.status === 'active' && d.generation === active.get(generationId(tenant_id, d.collection));
      isPublic = searchable && d.visibility === 'public';
      const stored = toStored(d);
      add(i, 'private', { index: { _index: indexes.records, ...write } }, stored);
      if (isPublic) add(i, 'public', { index: { _index: indexes.public, ...write } }, stored);
    } else {
      add(i, 'private', { index: { _index: indexes.records, ...write } }, tombstoneOf(tenant_id, record_id, version));
    }
    if (!isPublic && previous?.public) add(i, 'public', { delete: { _index: indexes.public, ...write } });
    // `public` remembers visibility, not searchability: a public document of an inactive generation gets a delete
    // that finds nothing, which keeps the rule free of generation history.
    documents.set(id, {
      version,
      removed: change.op === 'remove',
      public: change.op === 'upsert' && change.document.visibility === 'public',
    });
  });
  return plan;

  function add(change: number, role: PlannedAction['role'], action: estypes.BulkOperationContainer, source?: object) {
    plan.operations.push(action);
    if (source) plan.operations.push(source);
    plan.actions.push({ change, role });
  }
}

export function reasonOf(error: estypes.ErrorCause | undefined): string {
  if (!error) return 'unknown error';
  const cause = error.caused_by ? ` (${error.caused_by.type}: ${error.caused_by.reason ?? ''})` : '';
  return `${error.type}: ${error.reason ?? ''}${cause}`;
}

/** A write refused because the index already holds this or a newer version: for the caller, already indexed. */
export function isVersionConflict(item: estypes.BulkResponseItem): boolean {
  return item.status === 409 || item.error?.type === 'version_conflict_engine_exception';
}

/** Whether a bulk item failed in a way the change must be retried for. A delete that found nothing succeeded. */
export function itemFailure(item: estypes.BulkResponseItem): string | undefined {
  if (!item.error || isVersionConflict(item)) return undefined;
  return reasonOf(item.error);
}

/** The outcome of every change, in order: settled ones as planned, written ones from their bulk items. */
export function outcomesOf(changes: IndexChange[], plan: BulkPlan, response: estypes.BulkResponse | undefined): ApplyOutcome[] {
  const failures = new Map<number, string>();
  if (response) {
    if (response.items.length !== plan.actions.length) {
      throw new Error(`bulk answered ${response.items.length} items for ${plan.actions.length} actions`);
    }
    response.items.forEach((entry, n) => {
      const item = entry.index ?? entry.delete ?? entry.create ?? entry.update;
      const action = plan.actions[n]!;
      const failure = item ? itemFailure(item) : 'bulk answered an empty item';
      if (failure && !failures.has(action.change)) {
        failures.set(action.change, action.role === 'public' ? `public index: ${failure}` : failure);
      }
    });
  }
  return changes.map((change, i) => {
    const settled = plan.settled.get(i);
    if (settled) return settled;
    const { record_id, version } = change.op === 'upsert' ? change.document : change;
    const error = failures.get(i);
    return error === undefined ? { record_id, version, status: 'indexed' } : { record_id, version, status: 'failed', error };
  });
}
