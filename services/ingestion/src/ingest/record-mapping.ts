import { DESCRIPTION_MAX, RECORD_NAME_MAX, SOURCE_ID_MAX, SOURCE_URL_MAX, bulkUpsertItem, currentName, isStorableText, olderName } from '@trove/contracts';
import { fieldLimitBreach, unstorablePart } from './storable';

/** A record as ingestion sends it to records' bulk upsert. */
export interface UpsertItem {
  name: string;
  source_id?: string;
  description?: string;
  source_url?: string;
  collection_data: Record<string, unknown>;
}

export type Mapped = { ok: true; record: UpsertItem } | { ok: false; error: string };

export interface MappingOptions {
  /** The field that holds the record's name (CSV `name_column`); `name` by default. */
  nameColumn?: string;
  /** The field holding explicit collection data: `collection_data`, or `vertical_data` in the older vocabulary. */
  dataField?: 'collection_data' | 'vertical_data';
}

const TEXT_FIELDS = { source_id: SOURCE_ID_MAX, description: DESCRIPTION_MAX, source_url: SOURCE_URL_MAX } as const;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A scalar a file format may have typed (CSV `12345` is a number) read back as the text it was. */
function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return undefined;
}

type Field<T> = { value: T } | { error: string };

function nameOf(raw: Record<string, unknown>, column: string): Field<string> {
  const label = column === 'name' ? 'name' : `name (column '${column}')`;
  const value = raw[column];
  const required = { error: column === 'name' ? 'name is required' : `name is required: column '${column}' is missing or empty` };
  if (value === undefined || value === null) return required;
  const text = asText(value);
  if (text === undefined) return { error: `${label} must be a string` };
  const name = text.trim();
  if (name === '') return required;
  if (name.length > RECORD_NAME_MAX) return { error: `${label} must be at most ${RECORD_NAME_MAX} characters` };
  if (!isStorableText(name)) return { error: `${label} contains a NUL character or an unpaired surrogate, which cannot be stored` };
  return { value: name };
}

function optionalText(raw: Record<string, unknown>, key: keyof typeof TEXT_FIELDS): Field<string | undefined> {
  const value = raw[key];
  if (value === undefined || value === null) return { value: undefined };
  const text = asText(value);
  if (text === undefined) return { error: `${key} must be a string` };
  // Spaces around an identifier are an accident of the export; in a description they may be meant.
  const kept = key === 'source_id' ? text.trim() : text;
  if (kept === '') return { value: undefined };
  if (kept.length > TEXT_FIELDS[key]) return { error: `${key} must be at most ${TEXT_FIELDS[key]} characters` };
  if (!isStorableText(kept)) return { error: `${key} contains a NUL character or an unpaired surrogate, which cannot be stored` };
  return { value: kept };
}

/**
 * Maps one submitted object (a batch record, an NDJSON line, a CSV row, an XML element, a PDF page) onto a record:
 * the name from the name column, `source_id`, `description` and `source_url` as text, and everything else as
 * collection_data, an explicit `collection_data` object (`vertical_data` in the older vocabulary) winning over loose
 * fields of the same key. Anything records would refuse is rejected here with a message saying why, so one bad record
 * never fails the chunk it travels in.
 */
export function mapRecord(raw: unknown, opts: MappingOptions = {}): Mapped {
  if (!isPlainObject(raw)) return { ok: false, error: 'a record must be a JSON object' };
  const column = opts.nameColumn ?? 'name';

  const name = nameOf(raw, column);
  if ('error' in name) return { ok: false, error: name.error };

  const texts: Partial<Record<keyof typeof TEXT_FIELDS, string>> = {};
  for (const key of Object.keys(TEXT_FIELDS) as (keyof typeof TEXT_FIELDS)[]) {
    const field = optionalText(raw, key);
    if ('error' in field) return { ok: false, error: field.error };
    if (field.value !== undefined) texts[key] = field.value;
  }

  const dataField = opts.dataField ?? 'collection_data';
  // The other vocabulary's data object would otherwise be kept as one loose field of that name.
  const otherField = dataField === 'collection_data' ? olderName(dataField) : currentName(dataField);
  if (isPlainObject(raw[otherField])) return { ok: false, error: `${otherField} is not a field of this route's vocabulary; send the data as ${dataField}` };
  const explicit = raw[dataField];
  if (explicit !== undefined && explicit !== null && !isPlainObject(explicit)) {
    return { ok: false, error: `${dataField} must be an object` };
  }
  const reserved = new Set([column, 'source_id', 'description', 'source_url', dataField]);
  // fromEntries defines own properties, so a key such as __proto__ stays data and never reaches a prototype.
  const collectionData = Object.fromEntries([
    ...Object.entries(raw).filter(([k]) => !reserved.has(k)),
    ...Object.entries(explicit ?? {}),
  ]);
  const record: UpsertItem = { name: name.value, ...texts, collection_data: collectionData };
  // The contract records validates against; checked here so records never refuses what ingestion let through.
  const checked = bulkUpsertItem.safeParse(record);
  if (checked.success) return { ok: true, record };
  // Said in the words of an upload where it can be: the fields above were checked already, so it is collection_data.
  const refused = unstorablePart(collectionData, 'collection_data') ?? fieldLimitBreach(collectionData);
  if (refused) return { ok: false, error: refused };
  const issue = checked.error.issues[0]!;
  return { ok: false, error: `${issue.path.map(String).join('.') || 'record'}: ${issue.message}` };
}
