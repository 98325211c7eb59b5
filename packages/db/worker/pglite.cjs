// The embedded database's thread (see src/pglite-thread.ts, which starts it and speaks its protocol). PGlite runs its
// WebAssembly PostgreSQL synchronously in whatever thread holds it; here that is this worker, so a query occupies this
// thread and the process's main thread keeps serving requests. Plain CommonJS so that it runs as it is, from the
// package's sources (tests) and from an install alike.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require('@electric-sql/pglite');
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm');

/** What crosses to the main thread of a PostgreSQL error: its message and its fields (code, detail, constraint, ...). */
function errorFields(err) {
  const fields = { message: err instanceof Error ? err.message : String(err), name: err instanceof Error ? err.name : 'Error' };
  if (err && typeof err === 'object') {
    for (const [key, value] of Object.entries(err)) {
      if (value === undefined || typeof value === 'function' || typeof value === 'object') continue;
      fields[key] = value;
    }
  }
  return fields;
}

async function main() {
  // pg_trgm ships with PostgreSQL servers but PGlite only has the contrib extensions it is given; the search engine's
  // typo-tolerant fallback needs it. int8 is read as a number, as postgres.ts configures pg.
  const pglite = await PGlite.create(workerData.dataDir, { extensions: { pg_trgm }, parsers: { 20: (v) => Number(v) } });
  const subscriptions = new Map();

  const operations = {
    async query({ sql, params }) {
      const result = await pglite.query(sql, params);
      return { rows: result.rows, affectedRows: result.affectedRows };
    },
    async exec({ sql }) {
      const results = await pglite.exec(sql);
      const last = results.at(-1);
      return { rows: last ? last.rows : [], affectedRows: last ? last.affectedRows : 0 };
    },
    async copy({ sql, data }) {
      const result = await pglite.query(sql, [], { blob: new Blob([data]) });
      return { rows: [], affectedRows: result.affectedRows };
    },
    async listen({ channel, subscription }) {
      const unsubscribe = await pglite.listen(channel, (payload) => parentPort.postMessage({ notify: subscription, payload }));
      subscriptions.set(subscription, unsubscribe);
      return null;
    },
    async unlisten({ subscription }) {
      const unsubscribe = subscriptions.get(subscription);
      subscriptions.delete(subscription);
      if (unsubscribe) await unsubscribe();
      return null;
    },
    async close() {
      if (!pglite.closed) await pglite.close();
      return null;
    },
  };

  parentPort.on('message', async (message) => {
    try {
      parentPort.postMessage({ id: message.id, result: await operations[message.op](message) });
    } catch (err) {
      parentPort.postMessage({ id: message.id, error: errorFields(err) });
    }
  });
  parentPort.postMessage({ ready: true });
}

main().catch((err) => parentPort.postMessage({ failed: errorFields(err) }));
