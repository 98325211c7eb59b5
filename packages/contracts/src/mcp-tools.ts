import { z } from 'zod';
import { answerFormat, collection, filters, pageLimit, recordId, recordType, sameAs, toolInput } from './mcp-tool-input';
import { AGGREGATE_GROUP_LIMIT, AGGREGATE_STATS_MAX, FACET_LIMIT_DEFAULT, FACETS_MAX, MAX_OFFSET, MULTI_SEARCH_MAX, SEARCH_TEXT_MAX } from './search';

/** MCP's tool annotations: hints to a client about what calling a tool does. */
export interface McpToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * One tool of the MCP endpoint, declared once: what the mcp service registers its handler with (and validates a call's
 * arguments by) and what the API reference lists under the `mcp` tag, its input schema as a component schema.
 */
export interface McpTool<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The tool's arguments, closed (toolInput): the SDK advertises it as JSON Schema and parses every call with it. */
  inputSchema: Input;
  annotations: McpToolAnnotations;
}

/** A tool's arguments as its handler receives them: parsed, defaults filled in. */
export type McpToolArgs<T extends McpTool> = z.output<T['inputSchema']>;

/** A resource template of the MCP endpoint: a record or schema read by URI. */
export interface McpResourceTemplate {
  name: string;
  /** An RFC 6570 URI template; each `{variable}` is one the reader fills in. */
  uriTemplate: string;
  title: string;
  description: string;
  mimeType: string;
}

const mcpTool = <Input extends z.ZodObject>(tool: McpTool<Input>): McpTool<Input> => tool;

/** What the server tells a client in `initialize`: where to start and which tool does what. */
export const MCP_INSTRUCTIONS =
  'Trove holds structured records grouped into collections. Start with trove_collections, then trove_schema for a ' +
  "collection's fields and filter syntax; find records with trove_search (ranked) or trove_list (browse), and read " +
  'one in full with trove_lookup.';

/** The name text under either of its names, each named in its own errors. */
const collectionNameText = (name: string) => z.string({ error: `${name} must be a string` }).trim().max(200).optional();

export const TROVE_COLLECTIONS_TOOL = mcpTool({
  name: 'trove_collections',
  title: 'List collections',
  description:
    "Lists this account's record collections with their record types, number of active records, category (the " +
    'main record type) and example record names. Start here to learn which collection to pass to the other tools.',
  inputSchema: toolInput({
    query: collectionNameText('query').describe('Only collections whose name contains this text (any case)'),
    q: collectionNameText('q').describe(sameAs('query', 'trove_list calls its search text `q`')),
    category: z
      .string({ error: 'category must be a string' })
      .trim()
      .max(200)
      .optional()
      .describe('Only collections holding a record type that contains this text (any case), e.g. "product"'),
    limit: pageLimit(100, 20, 'Collections to return'),
  }),
  annotations: { readOnlyHint: true },
});

export const TROVE_SCHEMA_TOOL = mcpTool({
  name: 'trove_schema',
  title: 'Describe a collection',
  description:
    "Shows the fields of a collection's records (collection_data): field names, inferred types (string, integer, " +
    'number, boolean, date, array, object) and up to 4 sample values each, plus the record types and counts and a ' +
    'guide to the filter syntax. Call it before trove_search, trove_aggregate or trove_list with filters.',
  inputSchema: toolInput({ collection, record_type: recordType.optional() }),
  annotations: { readOnlyHint: true },
});

/** The search text under either of its names, each named in its own errors. */
const searchText = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, { error: `${name} must not be empty; leave it out to search by filters only` })
    .max(SEARCH_TEXT_MAX, { error: `${name} must be at most ${SEARCH_TEXT_MAX} characters` })
    .optional();

export const TROVE_SEARCH_TOOL = mcpTool({
  name: 'trove_search',
  title: 'Search records',
  description:
    'Searches the records of one collection (or several, as one ranked list) by text, identifier and/or filters on collection_data fields, best matches first. ' +
    'Give `query`, `filters`, or both. If query plus filters find nothing, the query is dropped and the filters alone are ' +
    'retried; the answer then says so. Returns a table with record ids (pass one to trove_lookup for the full record) ' +
    'and the total count; with `facets`, the values of those fields counted over every match. Call trove_schema first to ' +
    'learn the field names and filter syntax.',
  inputSchema: toolInput({
    collection: z
      .union([collection, z.array(collection).min(1).max(MULTI_SEARCH_MAX)], {
        // A union's own message would say only "invalid input": say what the branch the input was meant for wants.
        error: (issue) =>
          issue.input === undefined
            ? 'collection is required: a collection name as trove_collections lists it'
            : Array.isArray(issue.input)
              ? `collection must be a name or a list of 1-${MULTI_SEARCH_MAX} names, each as trove_collections lists it (case-sensitive)`
              : (collection.safeParse(issue.input).error?.issues[0]?.message ?? 'collection must be a collection name'),
      })
      .describe(
        `Collection name, exactly as trove_collections lists it (case-sensitive); or a list of up to ${MULTI_SEARCH_MAX} to search together, their matches merged into one list by score, each result naming its collection`,
      ),
    query: searchText('query').describe(
      'Search text: keywords, a question, or an identifier (EAN/GTIN, DIN/ISO standard, part number, SKU: exact matches score 1.0). Optional when filters are given.',
    ),
    q: searchText('q').describe(sameAs('query', 'trove_list calls its search text `q`')),
    filters,
    sort: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Sort field: name, updated_at, record_type, score (relevance) or a collection_data field; prefix "-" for descending, e.g. "-price". Default: relevance.'),
    limit: pageLimit(50, 10, 'Results per page'),
    offset: z
      .int({ error: 'offset must be a whole number >= 0' })
      .min(0, { error: 'offset must be >= 0' })
      .max(MAX_OFFSET, { error: `offset must be at most ${MAX_OFFSET}` })
      .default(0)
      .describe('Results to skip, for paging (default 0)'),
    exact_total: z
      .boolean()
      .optional()
      .describe('Count the matches exactly up to 10,000 (default: exact up to 1,000, estimated above, and the answer says which)'),
    facets: z
      .array(z.string({ error: 'facets must be field names' }).trim().min(1, { error: 'facet names must not be empty' }).max(200))
      .max(FACETS_MAX, { error: `At most ${FACETS_MAX} facets are allowed` })
      .optional()
      .describe(
        `collection_data fields (or record_type) whose values to count over every match, not just this page, e.g. ["brand", "price"]: ` +
          `the top ${FACET_LIMIT_DEFAULT} values of each with counts, and min/max/average where the field holds numbers; at most ${FACETS_MAX}`,
      ),
    format: answerFormat('a compact table', 'the results as JSON'),
  }),
  annotations: { readOnlyHint: true },
});

const aggregateField = z.string().trim().min(1, { error: 'field names must not be empty' }).max(200);

export const TROVE_AGGREGATE_TOOL = mcpTool({
  name: 'trove_aggregate',
  title: 'Count, group and summarise records',
  description:
    'Counts the searchable records of a collection that match optional filters, optionally grouped by one field ' +
    `(top ${AGGREGATE_GROUP_LIMIT} values with counts) and with count/min/max/average of up to ${AGGREGATE_STATS_MAX} numeric fields. ` +
    'Use it for questions like "how many", "which materials exist" or "price range". Same filter syntax as trove_search.',
  inputSchema: toolInput({
    collection,
    filters,
    group_by: aggregateField
      .optional()
      .describe(`A collection_data field (or "record_type") to count records by; the ${AGGREGATE_GROUP_LIMIT} largest groups are returned`),
    stats: z
      .array(aggregateField, { error: 'stats must be a list of field names, e.g. ["price"]' })
      .max(AGGREGATE_STATS_MAX, { error: `stats takes at most ${AGGREGATE_STATS_MAX} fields` })
      .optional()
      .describe(`Up to ${AGGREGATE_STATS_MAX} numeric collection_data fields to summarise (count, min, max, average), e.g. ["price", "weight"]`),
  }),
  annotations: { readOnlyHint: true },
});

/** The name search under either of its names, each named in its own errors. */
const nameSearch = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, { error: `${name} must not be empty; leave it out to list everything` })
    .max(500, { error: `${name} must be at most 500 characters` })
    .optional();

/** The orders trove_list can give the rows of a page. */
const LIST_SORTS = ['-created_at', 'created_at', 'name', '-name', 'updated_at', '-updated_at'] as const;

export const TROVE_LIST_TOOL = mcpTool({
  name: 'trove_list',
  title: 'Browse records',
  description:
    'Lists the records of a collection newest first, as a table with ids, one page at a time (pass `cursor` from the ' +
    'previous answer to continue). Unlike trove_search it sees drafts and suspended records and matches names only: ' +
    '`q` (or `query`) takes words (all must appear in the name; the last may be the start of a word), "quoted phrases", OR between ' +
    'alternatives and -word to exclude, e.g. `bolt OR screw "stainless steel" -zinc`. `filters` narrow by collection_data ' +
    'fields (syntax as trove_search).',
  inputSchema: toolInput({
    collection,
    record_type: recordType.optional(),
    // `suspended` is MCP's name for records out of service (docs/behaviour/mcp.md).
    status: z
      .enum(['active', 'draft', 'suspended'], { error: 'status must be "active", "draft" or "suspended"' })
      .default('active')
      .describe('active (default); draft; suspended = records taken out of service (deleted, kept as archived)'),
    q: nameSearch('q').describe('Name search: words (all required), "exact phrase", a OR b, -excluded'),
    query: nameSearch('query').describe(sameAs('q', 'trove_search calls its search text `query`')),
    filters,
    sort: z
      .enum(LIST_SORTS, { error: `sort must be one of ${LIST_SORTS.join(', ')}` })
      .default('-created_at')
      .describe(
        `Order of the rows within the returned page (pages always advance newest first): ${LIST_SORTS[0]} (default), ${LIST_SORTS.slice(1).join(', ')}`,
      ),
    cursor: z
      .string({ error: 'cursor must be the string a previous trove_list answer gave' })
      .optional()
      .describe('The "Next cursor" value of the previous answer, unchanged; omit for the first page'),
    limit: pageLimit(50, 20, 'Records per page'),
  }),
  annotations: { readOnlyHint: true },
});

export const TROVE_LOOKUP_TOOL = mcpTool({
  name: 'trove_lookup',
  title: 'Read one record',
  description:
    'Returns one record in full by its id: name, collection, record_type, status, visibility, description and all ' +
    'collection_data fields, as YAML (or JSON with format "json"). Very long values are cut and end with "…".',
  inputSchema: toolInput({ record_id: recordId, format: answerFormat('YAML text', 'a JSON object') }),
  annotations: { readOnlyHint: true },
});

/** Every tool of the MCP endpoint, in the order tools/list answers them. */
export const MCP_TOOLS: readonly McpTool[] = [
  TROVE_COLLECTIONS_TOOL,
  TROVE_SCHEMA_TOOL,
  TROVE_SEARCH_TOOL,
  TROVE_AGGREGATE_TOOL,
  TROVE_LIST_TOOL,
  TROVE_LOOKUP_TOOL,
];

export const MCP_RECORD_RESOURCE: McpResourceTemplate = {
  name: 'record',
  uriTemplate: 'record://{record_id}',
  title: 'Record',
  description: 'One record in full as YAML, as trove_lookup returns it',
  mimeType: 'application/yaml',
};

export const MCP_SCHEMA_RESOURCE: McpResourceTemplate = {
  name: 'schema',
  uriTemplate: 'schema://{collection}/{record_type}',
  title: 'Record type schema',
  description: 'Inferred collection_data field names and types of one record type of a collection',
  mimeType: 'application/yaml',
};

/** Every resource template of the MCP endpoint, in the order resources/templates/list answers them. */
export const MCP_RESOURCES: readonly McpResourceTemplate[] = [MCP_RECORD_RESOURCE, MCP_SCHEMA_RESOURCE];
