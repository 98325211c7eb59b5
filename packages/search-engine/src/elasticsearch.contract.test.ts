import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { ElasticsearchEngine } from './elasticsearch/engine';
import { runAll } from './engine.contract';

/**
 * The shared contract against a real Elasticsearch whenever ELASTICSEARCH_URL names a reachable cluster (for example
 * under docker-compose.yml). Each run works under its own index prefix, so a shared cluster keeps runs apart, and
 * deletes its indexes and templates afterwards.
 */

const url = process.env.ELASTICSEARCH_URL?.trim() ?? '';

/** The URL without credentials, for test names and messages. */
function redacted(raw: string): string {
  try {
    const u = new URL(raw);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/**
 * Describe blocks are declared synchronously, so the reachability probe runs in a child process with a short timeout.
 * Answers why the cluster cannot be used, or undefined when it answered its root endpoint with 200.
 */
function unusable(node: string): string | undefined {
  if (!node) return 'ELASTICSEARCH_URL not set';
  const probe = `
    const url = new URL(process.argv[1]);
    const lib = url.protocol === 'https:' ? require('node:https') : require('node:http');
    const req = lib.get(url, { timeout: 2000, rejectUnauthorized: false }, (res) => {
      res.resume();
      if (res.statusCode === 200) process.exit(0);
      process.stdout.write('answered HTTP ' + res.statusCode);
      process.exit(1);
    });
    req.on('timeout', () => { process.stdout.write('no answer within 2 s'); process.exit(1); });
    req.on('error', (e) => { process.stdout.write(e.code || e.message); process.exit(1); });`;
  const result = spawnSync(process.execPath, ['-e', probe, node], { timeout: 5_000, encoding: 'utf8' });
  if (result.status === 0) return undefined;
  return `${redacted(node)} unreachable: ${result.stdout || result.error?.message || 'probe failed'}`;
}

const reason = unusable(url);
if (reason === undefined) {
  runAll(`Elasticsearch (${redacted(url)})`, async () => {
    const engine = new ElasticsearchEngine({ node: url, indexPrefix: `trove-test-${randomUUID().slice(0, 8)}` });
    return {
      engine,
      async close() {
        const admin = new Client({ node: url });
        try {
          const names = Object.values(engine.indexes);
          await admin.indices.delete({ index: names, ignore_unavailable: true });
          await admin.indices.deleteIndexTemplate({ name: names });
        } finally {
          await admin.close();
          await engine.close();
        }
      },
    };
  });
} else {
  console.warn(`Elasticsearch contract run skipped: ${reason}`);
  describe.skip(`search engine contract: Elasticsearch (skipped: ${reason})`, () => {
    it('runs when ELASTICSEARCH_URL names a reachable cluster', () => undefined);
  });
}
