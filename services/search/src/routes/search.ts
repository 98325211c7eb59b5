import type { RequestHandler, Response } from 'express';
import {
  facetsAsked,
  highlightTags,
  MULTI_SEARCH,
  PORTAL_MULTI_SEARCH,
  PORTAL_SEARCH,
  SEARCH,
  SEARCH_BY_QUERY,
  type FilterValue,
  type MultiSearchAnswer,
  type SearchRequestBody,
} from '@trove/contracts';
import { ERRORS, handle, identityOf, parseInput, requestFilters, requirePortalUser, requireScope, tenantOf, type Router } from '@trove/platform';
import { federate } from '../domain/federation';
import type { MonthlyCap } from '../monthly-cap';
import type { Rendered, SearchRequest, SearchService } from '../search-service';

/** Engine filters from a search's or aggregation's filter object; a filter that cannot apply is a 422 naming it. */
export const filtersOf = (raw: Record<string, FilterValue>, at?: string[]) => requestFilters(raw, 'body', { recordType: true, at });

/** A search with neither query nor filters is refused, naming `query` (where it sits in the body: `at`). */
function requireQueryOrFilters(query: string | undefined, filters: unknown[], input: unknown, at: string[] = []): void {
  if (query === undefined && filters.length === 0) {
    throw ERRORS.validation([{ loc: ['body', ...at, 'query'], msg: 'Field required when no filters are given', type: 'missing', input: input ?? null, ctx: {} }]);
  }
}

/**
 * What a search body (private search's, or the public index's) asks for beyond its scope and filters; nothing else of
 * it (its raw filters, its collection) goes into the request, whose fields are the response cache's key.
 */
export function bodyOptions(
  body: Pick<SearchRequest, 'query' | 'sort' | 'limit' | 'offset' | 'format' | 'exact_total'> &
    Pick<SearchRequestBody, 'highlight' | 'facets' | 'facet_limit' | 'explain'>,
) {
  const { query, sort, limit, offset, format, exact_total } = body;
  const highlight = highlightTags(body.highlight);
  const facets = facetsAsked(body.facets, body.facet_limit);
  return { query, sort, limit, offset, format, exact_total, ...(highlight && { highlight }), ...(facets && { facets }), ...(body.explain && { explain: true }) };
}

export function send(res: Response, rendered: Rendered): void {
  if (rendered.kind === 'json') res.json(rendered.body);
  else if (rendered.kind === 'json-text') res.type('application/json; charset=utf-8').send(rendered.body);
  else res.type('text/plain; charset=utf-8').send(rendered.body);
}

/**
 * Every private search (key, portal and MCP alike) counts against the month's searches once its input is valid, so a
 * refused request never uses up the month; 402 past a free tenant's cap, before the engine is asked.
 */
export function searchRoutes(router: Router, search: SearchService, monthlyCap: MonthlyCap): void {
  /** Private search of one of the caller's collections, for a key and for a person signed in to the portal alike. */
  const privateSearch: RequestHandler = async (req, res) => {
    const { collection } = parseInput(SEARCH.params, req.params, 'path');
    const body = parseInput(SEARCH.body, req.body ?? {}, 'body');
    const filters = filtersOf(body.filters);
    requireQueryOrFilters(body.query, filters, req.body);
    await monthlyCap.check(identityOf(req));
    const scope = { kind: 'private' as const, tenant_id: tenantOf(req), collection };
    send(res, await search.search({ scope, filters, ...bodyOptions(body) }));
  };
  handle(router, SEARCH, requireScope('search'), privateSearch);
  handle(router, PORTAL_SEARCH, requirePortalUser(), privateSearch);

  /**
   * Several private searches in one request (docs/behaviour/search.md, "Multi-search"): every query is checked before
   * any runs, each counts as one search of the month, and they run side by side.
   */
  const multiSearch: RequestHandler = async (req, res) => {
    const started = performance.now();
    const body = parseInput(MULTI_SEARCH.body, req.body ?? {}, 'body');
    const tenant_id = tenantOf(req);
    const { federation } = body;
    const requests = body.queries.map((q, i): SearchRequest => {
      const at = ['queries', String(i)];
      const filters = filtersOf(q.filters, at);
      requireQueryOrFilters(q.query, filters, q, at);
      // A federated list pages the merged matches: each query gives its first offset + limit.
      const page = federation ? { limit: federation.offset + federation.limit, offset: 0 } : {};
      return { scope: { kind: 'private', tenant_id, collection: q.collection }, filters, ...bodyOptions({ ...q, format: 'json' }), ...page };
    });
    for (let i = 0; i < requests.length; i++) await monthlyCap.check(identityOf(req));
    const answers = await Promise.all(requests.map((r) => search.searchAnswer(r)));
    const answer: MultiSearchAnswer = federation
      ? federate(
          answers.map((a, i) => ({ collection: body.queries[i]!.collection, answer: a })),
          federation,
          Math.round((performance.now() - started) * 100) / 100,
        )
      : { results: answers };
    res.json(answer);
  };
  handle(router, MULTI_SEARCH, requireScope('search'), multiSearch);
  handle(router, PORTAL_MULTI_SEARCH, requirePortalUser(), multiSearch);

  // A cached answer is sent as the JSON text it was cached as, so the handler sends its answer itself.
  handle(router, SEARCH_BY_QUERY, requireScope('search'), async (req, res) => {
    const { collection } = parseInput(SEARCH_BY_QUERY.params, req.params, 'path');
    const q = parseInput(SEARCH_BY_QUERY.query, req.query, 'query');
    await monthlyCap.check(identityOf(req));
    const scope = { kind: 'private' as const, tenant_id: tenantOf(req), collection };
    send(res, await search.search({ scope, query: q.q, filters: [], limit: q.limit, offset: q.offset, format: 'json' }));
  });
}
