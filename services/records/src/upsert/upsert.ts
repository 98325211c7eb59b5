/** One item of a bulk upsert, with its content hash computed. */
export interface UpsertItem {
  name: string;
  source_id?: string | null;
  collection_data: Record<string, unknown>;
  description?: string | null;
  source_url?: string | null;
  content_hash: string;
}

/** A live (not archived) stored record of the chunk's tenant and collection that an item may match. */
export interface StoredMatch {
  id: string;
  source_id: string | null;
  record_type: string;
  content_hash: string;
}

export type UpsertStatus = 'created' | 'updated' | 'skipped';

/** What became of one item: written or skipped (with the record's id), or a new record the tenant's plan refused. */
export type ItemResult = { status: UpsertStatus; id: string } | { status: 'refused'; reason: string };

/**
 * The content a record is to be written with. `description` and `source_url` undefined mean "keep what is stored":
 * an upload that does not carry them must not wipe what an API client set.
 */
export interface RecordWrite {
  id: string;
  record_type: string;
  source_id: string | null;
  name: string;
  collection_data: Record<string, unknown>;
  content_hash: string;
  description: string | undefined;
  source_url: string | undefined;
}

export interface UpsertPlan {
  /** One per item, in item order. */
  results: ItemResult[];
  /** New records, in the order of the items that created them. */
  creates: RecordWrite[];
  /** Stored records whose content changes, each once, holding the last content the chunk gave it. */
  updates: RecordWrite[];
}

/** A record the chunk may touch, with the content it has after the items so far. One shape, so V8 keeps it fast. */
class Working {
  write: RecordWrite | undefined = undefined;
  constructor(
    readonly id: string,
    readonly source_id: string | null,
    readonly record_type: string,
    public content_hash: string,
    readonly isNew: boolean,
  ) {}
}

/**
 * Decides what each item of a chunk does, as if the items were applied one after another (docs/behaviour/ingestion.md, Dedup):
 *
 * - with a source_id: the live record with that source_id is skipped when its content is identical, otherwise its
 *   content is replaced (updated); without such a record one is created;
 * - without a source_id: skipped when a live record of the same record type has identical content, else created.
 *
 * "Live record" includes those earlier items of the chunk created or changed, so an item identical to an earlier
 * one is skipped and a later item with the same source_id updates what the earlier one wrote (last wins). Each
 * record is still written once, so it gets one new version and one event however many items touched it.
 *
 * `bySource` must hold the live records with the items' source ids; `byHash` the live records of `recordType` whose
 * hash is one of the items' hashes, oldest first (the first is the one a skipped item reports).
 */
export function planUpsert(input: {
  recordType: string;
  items: UpsertItem[];
  bySource: StoredMatch[];
  byHash: StoredMatch[];
  newId: () => string;
  /** How many records the chunk may create (the plan's allowance; unlimited when absent); later new ones are refused. */
  createLimit?: { allowed: number; reason: string };
}): UpsertPlan {
  const { recordType, newId } = input;
  let newRecords = 0;
  const working = new Map<string, Working>();
  const bySource = new Map<string, Working>();
  /** Live records of the chunk's record type by content hash; insertion order makes "first" the oldest. */
  const byHash = new Map<string, Set<string>>();

  const index = (w: Working) => {
    if (w.record_type !== recordType) return;
    let ids = byHash.get(w.content_hash);
    if (!ids) byHash.set(w.content_hash, (ids = new Set()));
    ids.add(w.id);
  };
  const track = (m: StoredMatch, isNew: boolean): Working => {
    const existing = working.get(m.id);
    if (existing) return existing;
    const w = new Working(m.id, m.source_id, m.record_type, m.content_hash, isNew);
    working.set(w.id, w);
    if (w.source_id !== null) bySource.set(w.source_id, w);
    index(w);
    return w;
  };
  for (const m of input.byHash) track(m, false);
  for (const m of input.bySource) track(m, false);

  const results = input.items.map((item): ItemResult => {
    const sourceId = item.source_id ?? null;
    const current = sourceId !== null ? bySource.get(sourceId) : firstOf(byHash.get(item.content_hash), working);
    if (current && current.content_hash === item.content_hash) return { status: 'skipped', id: current.id };
    if (current) {
      byHash.get(current.content_hash)?.delete(current.id);
      current.content_hash = item.content_hash;
      index(current);
      current.write = writeOf(current, item, current.write);
      return { status: 'updated', id: current.id };
    }
    // A refused item creates nothing, so a later item with its source_id is a new record again (and refused too).
    if (input.createLimit && newRecords >= input.createLimit.allowed) return { status: 'refused', reason: input.createLimit.reason };
    newRecords++;
    const created = track({ id: newId(), source_id: sourceId, record_type: recordType, content_hash: item.content_hash }, true);
    created.write = writeOf(created, item, undefined);
    return { status: 'created', id: created.id };
  });

  const creates: RecordWrite[] = [];
  const updates: RecordWrite[] = [];
  for (const w of working.values()) {
    if (w.write) (w.isNew ? creates : updates).push(w.write);
  }
  return { results, creates, updates };
}

function firstOf(ids: Set<string> | undefined, working: Map<string, Working>): Working | undefined {
  if (!ids) return undefined;
  for (const id of ids) return working.get(id);
  return undefined;
}

/** The record's new content; description and source_url given by an earlier item of the chunk stay unless overridden. */
function writeOf(w: Working, item: UpsertItem, earlier: RecordWrite | undefined): RecordWrite {
  return {
    id: w.id,
    record_type: w.record_type,
    source_id: w.source_id,
    name: item.name,
    collection_data: item.collection_data,
    content_hash: item.content_hash,
    description: item.description ?? earlier?.description,
    source_url: item.source_url ?? earlier?.source_url,
  };
}
