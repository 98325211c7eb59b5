import neo4j from 'neo4j-driver';

/** Nesting below which a value is written as text rather than followed further. */
const MAX_DEPTH = 32;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function integerOf(value: bigint): number | string {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
}

/** Significant digits a double holds exactly: a decimal with more keeps its text, so no digit is lost. */
const EXACT_DIGITS = 15;

/**
 * A fixed-point decimal's text (PostgreSQL numeric, MySQL DECIMAL, MongoDB Decimal128) as a number when a double
 * holds it exactly to its last significant digit (so `12.50` is 12.5 and filters and stats see a number), else as
 * the text itself (`NaN`, infinities and longer values).
 */
export function decimalValue(text: string): number | string {
  const m = /^[+-]?(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return text;
  const digits = `${m[1]}${(m[2] ?? '').replace(/0+$/, '')}`.replace(/^0+/, '');
  return digits.length <= EXACT_DIGITS ? Number(text) : text;
}

/** A BSON value the MongoDB driver returns (ObjectId, Decimal128, Long, Binary, Timestamp, …), by its `_bsontype`. */
function bsonValue(value: { _bsontype: string } & Record<string, unknown>): Json {
  switch (value._bsontype) {
    case 'ObjectId':
      return (value as unknown as { toHexString(): string }).toHexString();
    case 'Long':
      return integerOf(BigInt((value as unknown as { toString(): string }).toString()));
    case 'Binary': {
      const bytes = (value as unknown as { buffer: Uint8Array }).buffer;
      return Buffer.from(bytes).toString('base64');
    }
    case 'Double':
    case 'Int32':
      return Number((value as unknown as { valueOf(): number }).valueOf());
    case 'Decimal128':
      return decimalValue(String(value));
    default:
      // Timestamp, UUID, BSONRegExp, Code, MinKey, MaxKey: their own text form.
      return String(value);
  }
}

/**
 * A value a driver returned, as JSON that records can store:
 * - Date → ISO 8601 text (an invalid date → null); Buffer and other bytes → base64 text;
 * - bigint, MongoDB Long and Neo4j Integer → a number while it is a safe integer, else its decimal text;
 * - NaN and ±Infinity → their text; MongoDB ObjectId → its hex text; Decimal128 → decimalValue; other BSON types →
 *   their text;
 * - Neo4j nodes and relationships → their properties; paths → the list of their nodes' properties; temporal values
 *   → their ISO text; points → {srid, x, y[, z]};
 * - arrays and plain objects → the same, converted; anything else with toJSON → what toJSON gives, else its text.
 */
export function toJson(value: unknown, depth = 0): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return integerOf(value);
  if (typeof value !== 'object') return String(value);
  if (depth >= MAX_DEPTH) return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map((v) => toJson(v, depth + 1));
  if (neo4j.isInt(value)) return value.inSafeRange() ? value.toNumber() : value.toString();
  if (neo4j.isNode(value) || neo4j.isRelationship(value)) return toJson(value.properties, depth + 1);
  if (neo4j.isPath(value)) return value.segments.length === 0 ? [toJson(value.start.properties, depth + 1)] : [value.start, ...value.segments.map((s) => s.end)].map((n) => toJson(n.properties, depth + 1));
  if (neo4j.isPoint(value)) return toJson({ srid: value.srid, x: value.x, y: value.y, ...(value.z === undefined ? {} : { z: value.z }) }, depth + 1);
  if (
    neo4j.isDate(value) ||
    neo4j.isDateTime(value) ||
    neo4j.isLocalDateTime(value) ||
    neo4j.isTime(value) ||
    neo4j.isLocalTime(value) ||
    neo4j.isDuration(value)
  ) {
    return value.toString();
  }
  const record = value as Record<string, unknown>;
  if (typeof record._bsontype === 'string') return bsonValue(record as { _bsontype: string } & Record<string, unknown>);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJson(v, depth + 1)]));
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) {
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, toJson(v, depth + 1)]));
  }
  if (typeof (record as { toJSON?: unknown }).toJSON === 'function') return toJson((record as { toJSON(): unknown }).toJSON(), depth + 1);
  return String(value);
}

/** One row as a JSON object of its columns (fields), each value converted by toJson. */
export function rowToJson(row: Record<string, unknown>): Record<string, Json> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, toJson(v)]));
}
