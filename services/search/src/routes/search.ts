import type { RequestHandler, Response } from 'express';
import { facetsAsked, highlightTags, PORTAL_SEARCH, SEARCH, SEARCH_BY_QUERY, type FilterValue, type SearchRequestBody } from '@trove/contracts';
import { ERRORS, handle, identityOf, parseInput, requestFilters, requirePortalUser, requireScope, tenantOf, type Router } from '@trove/platform';
import type { MonthlyCap } from '../monthly-cap';
import type { Rendered, SearchRequest, SearchService } from '../search-service';

/** Engine filters from a search's or aggregation's filter object; a filter that cannot apply is a 422 naming it. */
export const filtersOf = (raw: Record<string, FilterValue>) => requestFilters(raw, 'body', { recordType: true });

/**
 * What a search body (private search's, or the public index's) asks for beyond its scope and filters; nothing else of
 * it (its raw filters, its collection) goes into the request, whose fields are the response cache's key.
 */
export function bodyOptions(
  body: Pick<SearchRequest, 'query' | 'sort' | 'limit' | 'offset' | 'format' | 'exact_total'> &
    Pick<SearchRequestBody, 'highlight' | 'facets' | 'facet_limit'>,
) {
  const { query, sort, limit, offset, format, exact_total } = body;
  const highlight = highlightTags(body.highlight);
  const facets = facetsAsked(body.facets, body.facet_limit);
  return { query, sort, limit, offset, format, exact_total, ...(highlight && { highlight }), ...(facets && { facets }) };
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
    if (body.query === undefined && filters.length === 0) {
      throw ERRORS.validation([{ loc: ['body', 'query'], msg: 'Field required when no filters are given', type: 'missing', input: req.body ?? null, ctx: {} }]);
    }
    await monthlyCap.check(identityOf(req));
    const scope = { kind: 'private' as const, tenant_id: tenantOf(req), collection };
    send(res, await search.search({ scope, filters, ...bodyOptions(body) }));
  };
  handle(router, SEARCH, requireScope('search'), privateSearch);
  handle(router, PORTAL_SEARCH, requirePortalUser(), privateSearch);

  // A cached answer is sent as the JSON text it was cached as, so the handler sends its answer itself.
  handle(router, SEARCH_BY_QUERY, requireScope('search'), async (req, res) => {
    const { collection } = parseInput(SEARCH_BY_QUERY.params, req.params, 'path');
    const q = parseInput(SEARCH_BY_QUERY.query, req.query, 'query');
    await monthlyCap.check(identityOf(req));
    const scope = { kind: 'private' as const, tenant_id: tenantOf(req), collection };
    send(res, await search.search({ scope, query: q.q, filters: [], limit: q.limit, offset: q.offset, format: 'json' }));
  });
}
