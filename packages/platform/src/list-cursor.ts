/** The position after which the next page of a newest-first listing starts. */
export interface ListPosition {
  createdAt: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * An opaque cursor of a newest-first listing (records, uploads): base64url of the sort key of the last item a page
 * returned.
 */
export function encodeListCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id]), 'utf8').toString('base64url');
}

/** Reads a cursor back; undefined when it is not one encodeListCursor wrote. */
export function decodeListCursor(cursor: string): ListPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
  const [createdAt, id] = parsed as unknown[];
  if (typeof createdAt !== 'string' || !ISO_UTC.test(createdAt) || typeof id !== 'string' || !UUID.test(id)) return undefined;
  const date = new Date(createdAt);
  if (Number.isNaN(date.getTime()) || date.toISOString() !== createdAt) return undefined;
  return { createdAt: date, id: id.toLowerCase() };
}
