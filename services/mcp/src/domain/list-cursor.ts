/**
 * trove_list's cursor: the records cursor of the page it stopped in (null for the first page) and how many items of
 * that page were already looked at, so filtering that stops mid-page resumes exactly there.
 */
export interface ListPosition {
  after: string | null;
  skip: number;
}

export function encodeListCursor(p: ListPosition): string {
  return Buffer.from(JSON.stringify([p.after, p.skip]), 'utf8').toString('base64url');
}

export function decodeListCursor(cursor: string): ListPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
    const [after, skip] = parsed as unknown[];
    if (!(after === null || (typeof after === 'string' && /^[A-Za-z0-9_-]{1,200}$/.test(after)))) return undefined;
    if (typeof skip !== 'number' || !Number.isInteger(skip) || skip < 0 || skip > 100) return undefined;
    return { after, skip };
  } catch {
    return undefined;
  }
}
