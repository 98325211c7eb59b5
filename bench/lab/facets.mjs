import { openDatabase } from '../../packages/db/dist/index.js';
import { PostgresSearchEngine } from '../../packages/search-engine/dist/index.js';
const url = process.argv[2];
const db = await openDatabase({ url, poolSize: 4 });
const engine = new PostgresSearchEngine(db);
const scope = { kind: 'private', tenant_id: '00000000-0000-4000-8000-000000000001', collection: 'catalogue' };
const queries = ['washer', 'hex bolt', 'Hilti', 'brass nut', 'stainless rivet', 'm8', 'anchor'];
for (const q of queries) {
  const base = { scope, text: { type: 'keyword', query: q, identifiers: [] }, filters: [], limit: 20, offset: 0 };
  const time = async (extra) => { const t = []; let r; for (let i = 0; i < 7; i++) { const s = performance.now(); r = await engine.search({ ...base, ...extra }); t.push(performance.now() - s); } t.sort((a, b) => a - b); return [t[3], r]; };
  const [plain, r] = await time({});
  const [hl] = await time({ highlight: { pre_tag: '<mark>', post_tag: '</mark>' } });
  const [fc] = await time({ facets: { fields: ['brand', 'material', 'price'], limit: 20 } });
  console.log(q.padEnd(16), 'total', r.total_estimate, 'plain', plain.toFixed(1), 'highlight', hl.toFixed(1), 'facets', fc.toFixed(1));
}
await engine.close(); await db.close();
