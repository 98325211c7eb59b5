import { useEffect, useMemo, useState } from 'preact/hooks';
import { baseUrl, portal, problemOf, trove } from '../api';
import { facetFields, highlightParts } from '../highlight';
import { filterValue, inferSchema, preview, scorePercent, type InferredField } from '../schema';
import { openSearchClient, openSearchCurl, searchBody, searchClient, searchCurl, type SearchRequestBody } from '../snippets';
import { Link, Problem, Snippet, formatNumber, useLoad } from '../ui';

/** How long the query box waits after the last keystroke before it searches. */
const DEBOUNCE_MS = 250;

interface Answer {
  results: Array<{
    record_id: string;
    name: string;
    score: number;
    collection: string;
    record_type: string;
    collection_data: Record<string, unknown>;
    highlights?: Record<string, string>;
    ranking?: Ranking;
  }>;
  facets?: Record<string, { values: Array<{ value: string | number | boolean; count: number }>; stats?: { count: number; min: number | null; max: number | null; avg: number | null } }>;
  metadata: { search_mode: string; query_type?: string; processing_time_ms: number; total_estimate: number; total_is_estimate?: boolean; hint?: string };
}

/** Why a result ranked where it did, as the search answers it with `explain: true`. */
interface Ranking {
  matched_by: string;
  terms: Array<{ term: string; matches: Array<{ field: string; word: string; as: string }> }>;
  identifiers: Array<{ field: string; text: string; identifier: string }>;
  phrases: string[];
  score: { total: number; name?: string; name_bonus?: number; parts: Record<string, { share: number; weight: number }> };
}

const PART_NAMES: Record<string, string> = {
  words_held: 'query words it holds',
  words_as_typed: 'words as typed (not through a typo)',
  words_in_name: 'words in its name',
  words_together: 'neighbouring words together',
  cover_density: 'how densely the words cover it',
  bm25: 'BM25: its words weighed by their rarity, how often it holds them and its length',
  searchable_fields: 'how early in the searchable fields its words stand',
};

/** The explanation of a result's rank: how it was found, each word's matches, and the score's parts. */
function Why({ ranking }: { ranking: Ranking }) {
  const { score } = ranking;
  return (
    <details class="why">
      <summary>Why this rank</summary>
      <p>
        Found by {ranking.matched_by === 'text' ? 'full text' : ranking.matched_by === 'fallback' ? 'the typo-tolerant fallback on names' : ranking.matched_by}
        {score.name === 'equal' ? '; its name is the query (+0.9)' : score.name === 'starts_with' ? '; its name starts with the query (+0.8)' : ''}.
      </p>
      {ranking.terms.length > 0 && (
        <ul>
          {ranking.terms.map((t) => (
            <li key={t.term}>
              <b>{t.term}</b>:{' '}
              {t.matches.length === 0 ? 'not found' : t.matches.map((m) => `${m.word} in ${m.field.replace(/^collection_data\./, '')} (${m.as})`).join(', ')}
            </li>
          ))}
        </ul>
      )}
      {ranking.identifiers.length > 0 && <p>Identifier {ranking.identifiers.map((i) => `${i.text} in ${i.field.replace(/^collection_data\./, '')}`).join(', ')}</p>}
      {ranking.phrases.length > 0 && <p>Together: {ranking.phrases.map((p) => `“${p}”`).join(', ')}</p>}
      <table class="parts">
        <tbody>
          {Object.entries(score.parts).map(([name, p]) => (
            <tr key={name}>
              <th scope="row">{PART_NAMES[name] ?? name.replace(/_/g, ' ')}</th>
              <td>{Math.round(p.share * 100)} %</td>
              <td>× {p.weight.toFixed(3)}</td>
              <td>= {(p.share * p.weight).toFixed(3)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** A highlighted text: the matches marked, every character rendered as text. */
function Highlighted({ text }: { text: string }) {
  return (
    <>
      {highlightParts(text).map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : p.text))}
    </>
  );
}

/** The facets of an answer: each field's values with counts (a click filters on one) and its numbers' range. */
function Facets({ facets, choose }: { facets: NonNullable<Answer['facets']>; choose?: (field: string, value: string) => void }) {
  const shown = Object.entries(facets).filter(([, f]) => f.values.length > 0);
  if (shown.length === 0) return null;
  return (
    <section class="facets" aria-label="Facets">
      {shown.map(([field, { values, stats }]) => (
        <div key={field} class="facet">
          <h3>{field}</h3>
          <ul>
            {values.slice(0, 8).map((v) => (
              <li key={String(v.value)}>
                {choose ? (
                  <button type="button" class="link" onClick={() => choose(field, String(v.value))}>
                    {String(v.value)}
                  </button>
                ) : (
                  String(v.value)
                )}{' '}
                <span class="hint">{formatNumber(v.count)}</span>
              </li>
            ))}
          </ul>
          {stats && stats.min !== null && (
            <p class="hint">
              {stats.min === stats.max ? stats.min : `${stats.min}–${stats.max}`}, average {Math.round((stats.avg ?? 0) * 100) / 100}
            </p>
          )}
        </div>
      ))}
    </section>
  );
}

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/** Asks the search whenever the (settled) request changes; an older answer arriving late is dropped. */
function useSearch(run: (() => Promise<Answer>) | undefined, key: string) {
  const [state, setState] = useState<{ answer?: Answer; error?: string; busy: boolean }>({ busy: false });
  useEffect(() => {
    if (!run) {
      setState({ busy: false });
      return;
    }
    let live = true;
    setState((s) => ({ ...s, busy: true }));
    portal(run).then(
      (answer) => live && setState({ answer, busy: false }),
      (err: unknown) => live && setState({ error: problemOf(err), busy: false }),
    );
    return () => {
      live = false;
    };
    // The key names the request; `run` is a new closure each render.
  }, [key]);
  return state;
}

/** The query box, filters and sort, shared by private search and the Open API's. */
function Controls({
  fields,
  query,
  setQuery,
  filters,
  setFilters,
  sort,
  setSort,
}: {
  fields: InferredField[];
  query: string;
  setQuery: (q: string) => void;
  filters: Record<string, string>;
  setFilters: (f: Record<string, string>) => void;
  sort: string;
  setSort: (s: string) => void;
}) {
  const filterable = fields.filter((f) => !f.types.includes('object') && !f.types.includes('array')).slice(0, 6);
  return (
    <div class="controls">
      <label class="grow">
        Query
        <input type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} placeholder="Words, a name or an identifier" autoFocus />
      </label>
      <label>
        Sort
        <select value={sort} onChange={(e) => setSort(e.currentTarget.value)}>
          <option value="">Relevance</option>
          <option value="name">Name (A–Z)</option>
          <option value="-updated_at">Newest first</option>
          {fields
            .filter((f) => f.types.every((t) => t === 'integer' || t === 'number' || t === 'string'))
            .slice(0, 8)
            .flatMap((f) => [
              <option key={f.name} value={f.name}>
                {f.name} (ascending)
              </option>,
              <option key={`-${f.name}`} value={`-${f.name}`}>
                {f.name} (descending)
              </option>,
            ])}
        </select>
      </label>
      {filterable.length > 0 && (
        <fieldset class="filters">
          <legend>Filters</legend>
          {filterable.map((f) => (
            <label key={f.name}>
              {f.name}
              <input
                value={filters[f.name] ?? ''}
                placeholder={f.samples[0] ? `e.g. ${f.samples[0]}` : ''}
                onInput={(e) => setFilters({ ...filters, [f.name]: e.currentTarget.value })}
              />
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}

function Results({ answer, busy, error, choose }: { answer?: Answer; busy: boolean; error?: string; choose?: (field: string, value: string) => void }) {
  if (error) return <Problem message={error} />;
  if (!answer) return busy ? <p role="status">Searching…</p> : null;
  const { results, metadata } = answer;
  const best = Math.max(...results.map((r) => r.score), 0);
  const identifier = metadata.search_mode === 'identifier';
  return (
    <div aria-busy={busy}>
      <p class="meta" role="status">
        {metadata.query_type && <span class="badge">query type: {metadata.query_type.replace('_', ' ')}</span>}
        <span class="badge">search mode: {metadata.search_mode}</span>
        <span>
          {metadata.total_is_estimate ? 'about ' : ''}
          {formatNumber(metadata.total_estimate)} found in {Math.round(metadata.processing_time_ms)} ms
        </span>
      </p>
      {results.length === 0 && <p>{metadata.hint ?? 'Nothing matched.'}</p>}
      {answer.facets && <Facets facets={answer.facets} choose={choose} />}
      <ol class="results">
        {results.map((r) => (
          <li key={r.record_id} class="result">
            <div class="result-head">
              <strong>{r.highlights?.name ? <Highlighted text={r.highlights.name} /> : r.name}</strong>
              {identifier && <mark class="badge id-match">identifier match</mark>}
              <span class="hint">
                {r.collection} · {r.record_type}
              </span>
            </div>
            <label class="score">
              <span>Score {r.score.toFixed(2)}</span>
              <meter min={0} max={100} value={scorePercent(r.score, best)} />
            </label>
            {r.highlights && Object.keys(r.highlights).some((f) => f !== 'name') && (
              <p class="matched">
                {Object.entries(r.highlights)
                  .filter(([field]) => field !== 'name')
                  .slice(0, 4)
                  .map(([field, text]) => (
                    <span key={field}>
                      <b>{field.replace(/^collection_data\./, '')}</b> <Highlighted text={text} />
                    </span>
                  ))}
              </p>
            )}
            {r.ranking && <Why ranking={r.ranking} />}
            <p class="fields">
              {Object.entries(r.collection_data)
                .slice(0, 6)
                .map(([k, v]) => (
                  <span key={k}>
                    <b>{k}</b> {preview(v, 40)}
                  </span>
                ))}
            </p>
          </li>
        ))}
      </ol>
    </div>
  );
}

function requestOf(query: string, filters: Record<string, string>, sort: string, fields: InferredField[], facets: string[] = [], explain = false): SearchRequestBody {
  const typed: Record<string, string | number | boolean> = {};
  for (const [name, text] of Object.entries(filters)) {
    if (text.trim()) typed[name] = filterValue(text, fields.find((f) => f.name === name)?.types ?? ['string']);
  }
  // Highlights only mean something for a query.
  return searchBody({ query, filters: typed, sort, limit: 20, highlight: query.trim() !== '', facets, explain });
}

export function Search({ collection: initial }: { collection?: string }) {
  const collections = useLoad(() => trove.portal.collections());
  const [collection, setCollection] = useState(initial ?? '');
  const [query, setQuery] = useState('');
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [sort, setSort] = useState('');
  const [explain, setExplain] = useState(false);
  const names = collections.data?.collections.map((c) => c.name) ?? [];
  const chosen = collection || names[0] || '';
  const sample = useLoad(
    async () => (chosen ? (await trove.call('GET', '/api/v1/portal/records', { params: { query: { collection: chosen, limit: 50 } } })).items : []),
    [chosen],
  );
  const fields = useMemo(() => inferSchema(sample.data ?? []), [sample.data]);
  const facets = useMemo(() => facetFields(sample.data ?? []), [sample.data]);
  const request = useDebounced(requestOf(query, filters, sort, fields, facets, explain), DEBOUNCE_MS);
  const key = JSON.stringify([chosen, request]);
  const state = useSearch(
    // Private search needs a query or a filter (the Open API lists public records without either).
    chosen && (request.query || request.filters)
      ? () => trove.call('POST', '/api/v1/portal/search/{collection}', { params: { path: { collection: chosen } }, body: request }) as Promise<Answer>
      : undefined,
    key,
  );

  return (
    <section>
      <h1 tabIndex={-1}>Search playground</h1>
      <Problem message={collections.error} />
      {collections.data && names.length === 0 && (
        <p>
          No collections yet. <Link href="/app/upload">Upload a file</Link> first.
        </p>
      )}
      {names.length > 0 && (
        <>
          <label>
            Collection
            <select
              value={chosen}
              onChange={(e) => {
                setCollection(e.currentTarget.value);
                setFilters({});
                setSort('');
              }}
            >
              {names.map((n) => (
                <option key={n}>{n}</option>
              ))}
            </select>
          </label>
          <Controls fields={fields} query={query} setQuery={setQuery} filters={filters} setFilters={setFilters} sort={sort} setSort={setSort} />
          <label class="check">
            <input type="checkbox" checked={explain} onChange={(e) => setExplain(e.currentTarget.checked)} /> Explain the ranking
          </label>
          <div class="split">
            <div>
              {!request.query && !request.filters && <p class="hint">Type a query or fill in a filter: results show as you type.</p>}
              <Results {...state} choose={(field, value) => setFilters({ ...filters, [field]: value })} />
            </div>
            <aside aria-label="The same request from a program">
              <h2>The same request from a program</h2>
              <Snippet title="curl" code={searchCurl(baseUrl, chosen, request)} />
              <Snippet title="@trove/client" code={searchClient(baseUrl, chosen, request)} />
            </aside>
          </div>
        </>
      )}
    </section>
  );
}

/** The Open API: every tenant's public records, without a key, as anyone on the web sees them. */
export function OpenSearch() {
  const [collection, setCollection] = useState('');
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState('');
  const body = useDebounced({ ...requestOf(query, {}, sort, []), ...(collection.trim() ? { collection: collection.trim() } : {}) }, DEBOUNCE_MS);
  const state = useSearch(() => trove.call('POST', '/open/v1/search', { body }) as Promise<Answer>, JSON.stringify(body));
  return (
    <section>
      <h1 tabIndex={-1}>Open API search</h1>
      <p>
        What anyone can find without a key: the <strong>public</strong> records of every account. Make a record public from its collection's page.
      </p>
      <label>
        Collection <span class="hint">(optional)</span>
        <input value={collection} onInput={(e) => setCollection(e.currentTarget.value)} placeholder="every collection" />
      </label>
      <Controls fields={[]} query={query} setQuery={setQuery} filters={{}} setFilters={() => undefined} sort={sort} setSort={setSort} />
      <div class="split">
        <div>
          <Results {...state} />
        </div>
        <aside aria-label="The same request from a program">
          <h2>The same request from a program</h2>
          <Snippet title="curl" code={openSearchCurl(baseUrl, body)} />
          <Snippet title="@trove/client" code={openSearchClient(baseUrl, body)} />
        </aside>
      </div>
    </section>
  );
}
