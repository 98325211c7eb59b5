/**
 * Relevance benchmark: judged queries over two data sets nobody on the team wrote the queries' answers into, run
 * through Trove (the whole system, --target=all, loaded and searched through the gateway) and through MiniSearch (a
 * well-known in-browser search library) over the same records. Prints one row per query and a summary:
 *
 * - exact name first: of the queries equal to some record's name (lowercase runs of letters and digits compared),
 *   the share whose first result is such a record;
 * - precision at 5: judged relevant results among the first five, over min(5, relevant records), averaged over the
 *   queries that have relevant records;
 * - overlap at 10 with MiniSearch: shared records among both first tens, over the larger of the two lists (at most 10);
 * - generated word first: queries whose first Trove result holds no query word (as typed, as a prefix or within the
 *   typo rules) in its name or collection_data, only in its generated description.
 *
 * Data: the films of the `vega-datasets` package (movies.json, 3,201 films; name = Title, collection_data = the other
 * non-null fields) and `--catalogue` records of the generated catalogue (catalogue.ts).
 *
 *   node bench/dist/relevance.js [--catalogue=5000]
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import MiniSearch from 'minisearch';
import { queryWords, STOP_WORDS, withinTypos } from '@trove/search-engine';
import { benchArgs } from './args';
import { ndcgAt10, papers, questions, reference } from './graded';
import { catalogue } from './catalogue';
import { startSystem, type RunningSystem } from './system';

interface Doc {
  key: string;
  collection: 'movies' | 'catalogue' | 'cranfield';
  name: string;
  description?: string;
  data: Record<string, unknown>;
}

interface Judged {
  collection: 'movies' | 'catalogue';
  query: string;
  kind: string;
  relevant: (d: Doc) => boolean;
}

const BATCH_SIZE = 1_000;

const norm = (text: string) => queryWords(text).join(' ');
const words = (text: string) => queryWords(text);

function movies(): Doc[] {
  // The package exports only its loader; the data files sit beside its build.
  const file = join(dirname(require.resolve('vega-datasets')), '..', 'data', 'movies.json');
  const rows = JSON.parse(readFileSync(file, 'utf8')) as Array<Record<string, unknown>>;
  return rows.map((row, i) => {
    const data = Object.fromEntries(Object.entries(row).filter(([k, v]) => k !== 'Title' && v !== null && v !== ''));
    return { key: `movies:${i}`, collection: 'movies', name: String(row.Title), data };
  });
}

function cranfieldDocs(): Doc[] {
  return papers().map((p) => ({
    key: `cranfield:${p.id}`,
    collection: 'cranfield',
    name: p.title,
    description: p.abstract,
    data: { paper: Number(p.id), authors: p.authors, bibliography: p.bibliography },
  }));
}

function catalogueDocs(count: number): Doc[] {
  return [...catalogue(count, 7)].map((r, i) => ({ key: `catalogue:${i}`, collection: 'catalogue', name: r.name, data: r.collection_data }));
}

/** Every query word a prefix of some word of the name. */
const titled = (query: string) => (d: Doc) => {
  const name = words(d.name);
  return words(query).every((w) => name.some((n) => n.startsWith(w)));
};
const field = (d: Doc, key: string) => String(d.data[key] ?? '');
const directed = (director: string, genre?: string) => (d: Doc) =>
  field(d, 'Director') === director && (genre === undefined || field(d, 'Major Genre').includes(genre));

function judgedQueries(docs: Doc[]): Judged[] {
  const cat = docs.filter((d) => d.collection === 'catalogue');
  const pick = (i: number) => cat[i]!;
  const kindIs = (kind: string) => (d: Doc) => d.name.includes(` ${kind} `);
  const m = (query: string, kind: string, relevant: Judged['relevant']): Judged => ({ collection: 'movies', query, kind, relevant });
  const c = (query: string, kind: string, relevant: Judged['relevant']): Judged => ({ collection: 'catalogue', query, kind, relevant });
  return [
    ...['Batman', 'Titanic', 'Avatar', 'Home Alone', 'Alien', 'Jaws', 'Speed', 'Spider-Man', 'Toy Story', 'The Dark Knight', 'Inception', 'The Terminator'].map((q) =>
      m(q, 'exact title', titled(q)),
    ),
    ...['harry potter', 'star wars', 'pirates of the caribbean', 'jurassic', 'indiana jones'].map((q) => m(q, 'title prefix', titled(q))),
    m('clint eastwood', 'director', directed('Clint Eastwood')),
    m('steven spielberg', 'director', directed('Steven Spielberg')),
    m('christopher nolan', 'director', directed('Christopher Nolan')),
    m('tim burton', 'director', directed('Tim Burton')),
    m('woody allen', 'director', directed('Woody Allen')),
    m('movies directed by clint eastwood', 'director, sentence', directed('Clint Eastwood')),
    m('films by steven spielberg', 'director, sentence', directed('Steven Spielberg')),
    m('spielberg adventure', 'genre + director', directed('Steven Spielberg', 'Adventure')),
    m('eastwood drama', 'genre + director', directed('Clint Eastwood', 'Drama')),
    m('woody allen comedy', 'genre + director', directed('Woody Allen', 'Comedy')),
    m('nolan thriller', 'genre + director', directed('Christopher Nolan', 'Thriller')),
    m('batmna', 'typo', titled('batman')),
    m('titanc', 'typo', titled('titanic')),
    m('incepiton', 'typo', titled('inception')),
    m('harry poter', 'typo', titled('harry potter')),
    m('jurasic park', 'typo', titled('jurassic park')),
    m('spielbreg', 'typo', directed('Steven Spielberg')),
    m('eastwod', 'typo', directed('Clint Eastwood')),
    m('film', 'generated word', () => false),
    m('collection', 'generated word', () => false),
    m('gross', 'generated word', () => false),
    c('hex bolt', 'keyword', kindIs('hex bolt')),
    c('hex blot', 'typo', kindIs('hex bolt')),
    c('wahser', 'typo', kindIs('washer')),
    c('stainless steel washer', 'keywords', (d) => kindIs('washer')(d) && field(d, 'material').startsWith('stainless')),
    c('brass wood screw', 'keywords', (d) => kindIs('wood screw')(d) && field(d, 'material') === 'brass'),
    c('titanium rivet', 'keywords', (d) => kindIs('rivet')(d) && field(d, 'material') === 'titanium'),
    c('M10 threaded rod', 'keywords', (d) => kindIs('threaded rod')(d) && field(d, 'size') === 'M10'),
    c('wurth anchor', 'typo (ü)', (d) => kindIs('anchor')(d) && field(d, 'brand') === 'Würth'),
    c('DIN 933', 'identifier (standard)', (d) => field(d, 'standard') === 'DIN 933'),
    c(field(pick(123), 'sku'), 'identifier (SKU)', (d) => d.key === pick(123).key),
    c(field(pick(42), 'ean'), 'identifier (EAN)', (d) => d.key === pick(42).key),
    c(pick(7).name, 'exact name', (d) => d.key === pick(7).key),
    c(pick(7).name.replace(/ #\d+$/, ''), 'name without number', (d) => norm(d.name).startsWith(norm(pick(7).name.replace(/ #\d+$/, '')))),
  ];
}

/** The text values of collection_data, as both engines index them (strings and numbers). */
function dataValues(data: Record<string, unknown>): string {
  return Object.values(data)
    .filter((v) => typeof v === 'string' || typeof v === 'number')
    .join(' ');
}

function miniSearchOf(docs: Doc[]): MiniSearch<{ id: string; name: string; data: string }> {
  const mini = new MiniSearch<{ id: string; name: string; data: string }>({
    fields: ['name', 'data'],
    storeFields: ['name'],
    searchOptions: { fuzzy: 0.2, prefix: true, boost: { name: 2 } },
  });
  mini.addAll(docs.map((d) => ({ id: d.key, name: d.name, data: dataValues(d.data) })));
  return mini;
}

async function load(system: RunningSystem, docs: Doc[], collection: Doc['collection'], recordType: string): Promise<Map<string, string>> {
  const auth = { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' };
  const mine = docs.filter((d) => d.collection === collection);
  let accepted = 0;
  for (let i = 0; i < mine.length; i += BATCH_SIZE) {
    const records = mine
      .slice(i, i + BATCH_SIZE)
      .map((d) => ({ name: d.name, source_id: d.key, collection_data: d.data, ...(d.description !== undefined && { description: d.description }) }));
    const res = await fetch(`${system.base}/api/v1/upload/${collection}/${recordType}/batch`, { method: 'POST', headers: auth, body: JSON.stringify({ records }) });
    if (res.status !== 201) throw new Error(`batch answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
    const summary = ((await res.json()) as { summary: { accepted: number } }).summary;
    accepted += summary.accepted;
  }
  const started = performance.now();
  for (;;) {
    const res = await fetch(`${system.base}/api/v1/aggregate`, { method: 'POST', headers: auth, body: JSON.stringify({ collection }) });
    const total = ((await res.json()) as { total: number }).total;
    if (total >= accepted) break;
    if (performance.now() - started > 300_000) throw new Error(`${collection}: ${total} of ${accepted} searchable after 5 minutes`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // A search result carries no source_id; name and collection_data identify a record among these data sets.
  return new Map(mine.map((d) => [identity(d.name, d.data), d.key]));
}

function identity(name: string, data: Record<string, unknown>): string {
  const sorted = Object.keys(data)
    .sort()
    .map((k) => [k, data[k]]);
  return `${name}\u0000${JSON.stringify(sorted)}`;
}

interface TroveHit {
  name: string;
  score: number;
  collection_data: Record<string, unknown>;
  description_llm: string;
}

async function trove(system: RunningSystem, j: { collection: Doc['collection']; query: string }): Promise<TroveHit[]> {
  const res = await fetch(`${system.base}/api/v1/search/${j.collection}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: j.query, limit: 10 }),
  });
  if (res.status !== 200) throw new Error(`search ${j.query} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return ((await res.json()) as { results: TroveHit[] }).results;
}

/** Whether a query word is held (as typed, as a prefix of a word, or within the typo rules) in the text's words. */
function holds(text: string, word: string): boolean {
  return words(text).some((w) => w === word || w.startsWith(word) || withinTypos(word, w));
}

/** The first hit matches a query word only through its generated description. */
function decidedByGenerated(query: string, hit: TroveHit | undefined): boolean {
  if (!hit) return false;
  const content = words(query).filter((w) => !STOP_WORDS.has(w));
  const own = `${hit.name} ${dataValues(hit.collection_data)}`;
  const real = content.some((w) => holds(own, w));
  return !real && content.some((w) => holds(hit.description_llm, w));
}

function precisionAt5(keys: string[], byKey: Map<string, Doc>, j: Judged, relevantCount: number): number | undefined {
  if (relevantCount === 0) return undefined;
  const good = keys.slice(0, 5).filter((k) => j.relevant(byKey.get(k)!)).length;
  return good / Math.min(5, relevantCount);
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** nDCG@10 on Cranfield's 225 judged questions (graded.ts), Trove beside the reference BM25 library. */
async function graded(system: RunningSystem, docs: Doc[]) {
  const bm25 = reference(papers());
  const scores = { trove: [] as number[], bm25: [] as number[] };
  const behind: string[] = [];
  for (const q of questions()) {
    const hits = await trove(system, { collection: 'cranfield', query: q.text });
    const t = ndcgAt10(
      hits.map((h) => String(h.collection_data.paper)),
      q.gains,
    );
    const b = ndcgAt10(bm25(q.text), q.gains);
    if (t === undefined || b === undefined) continue;
    scores.trove.push(t);
    scores.bm25.push(b);
    if (t <= b - 0.2) behind.push(`${q.n} (${t.toFixed(2)} vs ${b.toFixed(2)})`);
  }
  console.log(`\nGraded: Cranfield, ${docs.length} papers, ${scores.trove.length} judged questions (bench/src/graded.ts)\n`);
  console.log('| measure | Trove | BM25 (wink-bm25-text-search) | target |');
  console.log('|---|---:|---:|---|');
  console.log(`| nDCG@10, mean | ${mean(scores.trove).toFixed(3)} | ${mean(scores.bm25).toFixed(3)} | at least the reference's |`);
  const ahead = scores.trove.filter((t, i) => t > scores.bm25[i]!).length;
  const tied = scores.trove.filter((t, i) => t === scores.bm25[i]!).length;
  console.log(`| questions ahead / tied / behind | ${ahead} / ${tied} / ${scores.trove.length - ahead - tied} | — | reported |`);
  console.log(`| questions 0.2 or more behind the reference | ${behind.length} | — | reported |`);
  if (behind.length) console.log(`\n0.2 or more behind: ${behind.join(', ')}`);
}

async function main() {
  const { catalogue: catalogueCount } = benchArgs({ catalogue: 5_000 });
  const docs = [...movies(), ...catalogueDocs(catalogueCount)];
  const byKey = new Map(docs.map((d) => [d.key, d]));
  const judged = judgedQueries(docs);
  const minis = { movies: miniSearchOf(docs.filter((d) => d.collection === 'movies')), catalogue: miniSearchOf(docs.filter((d) => d.collection === 'catalogue')) };

  const system = await startSystem({ SEARCH_CACHE_TTL_MS: '0' });
  try {
    const t0 = performance.now();
    const keys = { movies: await load(system, docs, 'movies', 'film'), catalogue: await load(system, docs, 'catalogue', 'product') };
    const cranfield = cranfieldDocs();
    await load(system, cranfield, 'cranfield', 'paper');
    console.error(`loaded ${docs.length} records in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const rows: string[] = [];
    const exactFirst = { trove: [] as boolean[], mini: [] as boolean[] };
    const p5 = { trove: [] as number[], mini: [] as number[] };
    const overlaps: number[] = [];
    const generatedFirst: string[] = [];
    const missing: string[] = [];
    for (const j of judged) {
      const hits = await trove(system, j);
      const troveKeys = hits.map((h) => {
        const key = keys[j.collection].get(identity(h.name, h.collection_data));
        if (!key) missing.push(`${j.query}: ${h.name}`);
        return key ?? '?';
      });
      const miniKeys = minis[j.collection]
        .search(j.query)
        .slice(0, 10)
        .map((r) => String(r.id));
      const pool = docs.filter((d) => d.collection === j.collection);
      const relevantCount = pool.filter(j.relevant).length;
      const exactName = pool.some((d) => norm(d.name) === norm(j.query));
      const firstIsExact = (ks: string[]) => ks.length > 0 && norm(byKey.get(ks[0]!)?.name ?? '') === norm(j.query);
      if (exactName) {
        exactFirst.trove.push(firstIsExact(troveKeys));
        exactFirst.mini.push(firstIsExact(miniKeys));
      }
      const pt = precisionAt5(troveKeys, byKey, j, relevantCount);
      const pm = precisionAt5(miniKeys, byKey, j, relevantCount);
      if (pt !== undefined && pm !== undefined) {
        p5.trove.push(pt);
        p5.mini.push(pm);
      }
      const shared = troveKeys.filter((k) => miniKeys.includes(k)).length;
      const longest = Math.min(10, Math.max(troveKeys.length, miniKeys.length));
      const overlap = longest === 0 ? 1 : shared / longest;
      overlaps.push(overlap);
      const generated = decidedByGenerated(j.query, hits[0]);
      if (generated) generatedFirst.push(j.query);
      const first = (ks: string[]) => (ks[0] ? (byKey.get(ks[0])?.name ?? '?') : '—').replace(/\|/g, '/');
      rows.push(
        `| ${j.collection} | \`${j.query}\` | ${j.kind} | ${relevantCount} | ${first(troveKeys)}${exactName ? (firstIsExact(troveKeys) ? ' ✓' : ' ✗') : ''} | ${
          hits[0] ? hits[0].score.toFixed(3) : '—'
        } | ${pt === undefined ? '—' : pt.toFixed(2)} | ${first(miniKeys)} | ${pm === undefined ? '—' : pm.toFixed(2)} | ${overlap.toFixed(1)} | ${generated ? 'yes' : 'no'} |`,
      );
    }
    console.log(
      `\nTrove relevance benchmark, ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${docs.length} records (${keys.movies.size} films, ${keys.catalogue.size} catalogue), ${judged.length} judged queries`,
    );
    console.log('\n| collection | query | kind | relevant | Trove first | score | Trove P@5 | MiniSearch first | MiniSearch P@5 | overlap@10 | generated word first |');
    console.log('|---|---|---|---:|---|---:|---:|---|---:|---:|---|');
    for (const r of rows) console.log(r);
    const rate = (xs: boolean[]) => `${xs.filter(Boolean).length}/${xs.length}`;
    console.log('\n| measure | Trove | MiniSearch | target |');
    console.log('|---|---:|---:|---|');
    console.log(`| exact name first | ${rate(exactFirst.trove)} | ${rate(exactFirst.mini)} | every judged case |`);
    console.log(`| precision at 5 (mean over ${p5.trove.length} queries with relevant records) | ${mean(p5.trove).toFixed(3)} | ${mean(p5.mini).toFixed(3)} | at least MiniSearch's |`);
    console.log(`| overlap at 10 with MiniSearch (mean over ${overlaps.length} queries) | ${pct(mean(overlaps))} | — | reported |`);
    console.log(`| queries whose first result a generated-description word decides | ${generatedFirst.length}${generatedFirst.length ? ` (${generatedFirst.join(', ')})` : ''} | — | none |`);
    if (missing.length) console.log(`\nhits not mapped to a loaded record: ${missing.length} (${missing.slice(0, 5).join('; ')})`);
    await graded(system, cranfield);
  } finally {
    await system.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
