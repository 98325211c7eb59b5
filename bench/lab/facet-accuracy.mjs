import { openDatabase } from '../../packages/db/dist/index.js';
import { PostgresSearchEngine } from '../../packages/search-engine/dist/index.js';
const db = await openDatabase({ url: process.argv[2], poolSize: 4 });
const engine = new PostgresSearchEngine(db);
const scope = { kind: 'private', tenant_id: '00000000-0000-4000-8000-000000000001', collection: 'catalogue' };
for (const q of ['washer', 'Hilti', 'm8']) {
  const base = { scope, text: { type: 'keyword', query: q, identifiers: [] }, filters: [], limit: 20, offset: 0, facets: { fields: ['brand', 'material', 'price'], limit: 5 } };
  const est = await engine.search(base);
  const ex = await engine.search({ ...base, exact_total: true });
  for (const f of ['brand', 'material']) {
    const e = Object.fromEntries(ex.facets[f].values.map((v) => [v.value, v.count]));
    console.log(q, f, est.facets[f].estimated, est.facets[f].values.map((v) => `${v.value}:${v.count}/${e[v.value]}`).join(' '));
  }
  console.log(q, 'price', JSON.stringify(est.facets.price.stats), JSON.stringify(ex.facets.price.stats));
}
await engine.close(); await db.close();
