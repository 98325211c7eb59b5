import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { formatFilters, TROVE_LIST_TOOL, type McpToolArgs } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { keyData, table } from '../domain/format';
import { decodeListCursor, encodeListCursor, type ListPosition } from '../domain/list-cursor';
import { matchesName, parseNameQuery } from '../domain/name-query';
import { ToolError } from '../domain/tool-error';
import type { Backend, FullRecord, ListItem } from '../backend';
import { checkCollectionCase, dataFilters, eitherName, registerTool } from './common';

/** Records looked at per call when q thins the pages out; the cursor continues from where it stopped. */
export const LIST_SCAN = 500;
const PAGE = 100;

type Args = McpToolArgs<typeof TROVE_LIST_TOOL>;

/** `suspended` (MCP's name; docs/behaviour/mcp.md) lists records out of service, which records keeps as archived. */
const STATUS = { active: 'active', draft: 'draft', suspended: 'archived' } as const satisfies Record<Args['status'], string>;

interface Row {
  item: ListItem;
  record?: FullRecord;
}

export function registerList(server: McpServer, backend: Backend, logger: Logger): void {
  registerTool(server, logger, TROVE_LIST_TOOL, 'Narrow with q, record_type or filters, or a smaller limit.', async (args) => {
    const start = args.cursor === undefined ? { after: null, skip: 0 } : decodeListCursor(args.cursor);
    if (!start) throw new ToolError('cursor: pass the "Next cursor" value of a previous trove_list answer unchanged, or leave it out for the first page.');
    const q = eitherName<string>(args, 'q', 'query');
    const nameQuery = q === undefined ? undefined : parseNameQuery(q);
    if (q !== undefined && !nameQuery) {
      const given = args.q === undefined ? 'query' : 'q';
      throw new ToolError(`${given} holds no word to search for; use letters or digits, or leave ${given} out.`);
    }
    const data = dataFilters(args.filters);
    // Records applies the data filters to its listing; only the name query, in trove_list's own syntax, is matched here.
    const filters = data.length > 0 ? formatFilters(data) : undefined;
    const thinned = nameQuery !== undefined;

    const rows: Row[] = [];
    let position: ListPosition | null = start;
    let scanned = 0;
    while (position && rows.length < args.limit && (!thinned || scanned < LIST_SCAN)) {
      const pageSize = thinned ? PAGE : Math.min(PAGE, args.limit - rows.length + position.skip);
      const page = await backend.list({
        collection: args.collection,
        record_type: args.record_type,
        status: STATUS[args.status],
        filters,
        cursor: position.after ?? undefined,
        limit: pageSize,
      });
      const items = page.items.slice(position.skip);
      let stoppedAt: number | undefined;
      for (let n = 0; n < items.length; n++) {
        if (rows.length >= args.limit) {
          stoppedAt = n;
          break;
        }
        scanned++;
        if (nameQuery && !matchesName(nameQuery, items[n]!.name)) continue;
        rows.push({ item: items[n]! });
      }
      if (stoppedAt !== undefined) position = { after: position.after, skip: position.skip + stoppedAt };
      else position = page.has_more && page.cursor ? { after: page.cursor, skip: 0 } : null;
      if (stoppedAt !== undefined) break;
    }
    // The key data column shows what the filters looked at: each listed record's collection_data is read.
    if (data.length > 0) {
      const records = await mapLimit(rows, 10, (r) => backend.record(r.item.id));
      rows.forEach((r, n) => (r.record = records[n]));
    }

    if (rows.length === 0 && args.cursor === undefined) await checkCollectionCase(backend, args.collection);
    sortRows(rows, args.sort);
    const lines: string[] = [];
    const what = `${args.status} record${rows.length === 1 ? '' : 's'} in "${args.collection}"${args.record_type ? ` of type "${args.record_type}"` : ''}`;
    if (rows.length === 0) lines.push(`No ${what}${thinned || data.length > 0 ? ' match' : ''} on this page.`);
    else {
      lines.push(`${rows.length} ${what}:`, '');
      const headers = ['Name', 'Type', 'Updated', ...(data.length > 0 ? ['Key data'] : []), 'Record ID'];
      lines.push(
        table(
          headers,
          rows.map((r) => [r.item.name, r.item.record_type, r.item.updated_at.slice(0, 10), ...(data.length > 0 ? [keyData(r.record?.collection_data)] : []), r.item.id]),
        ),
      );
    }
    lines.push('');
    if (position) {
      if (thinned && rows.length < args.limit) lines.push(`Looked at ${scanned} records without filling the page; more may match further on.`);
      lines.push(`Next cursor: ${encodeListCursor(position)}`);
    } else lines.push('Next cursor: none (this is the last page).');
    return lines.join('\n');
  });
}

function sortRows(rows: Row[], sort: Args['sort']): void {
  const desc = sort.startsWith('-');
  const key = (desc ? sort.slice(1) : sort) as 'created_at' | 'name' | 'updated_at';
  rows.sort((a, b) => {
    const c = key === 'name' ? a.item.name.localeCompare(b.item.name) : a.item[key] < b.item[key] ? -1 : a.item[key] > b.item[key] ? 1 : 0;
    return desc ? -c : c;
  });
}

/** Maps with at most `limit` calls in flight, keeping order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
