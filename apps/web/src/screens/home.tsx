import { baseUrl, trove } from '../api';
import { Link, Problem, Snippet, formatDate, useLoad } from '../ui';

/** Where each quickstart step is done in the UI. */
const WHERE: Record<string, { href: string; label: string }> = {
  create_api_key: { href: '/app/keys', label: 'Create a key' },
  define_schema: { href: '/app/upload', label: 'Upload a file' },
  upload_data: { href: '/app/upload', label: 'Upload a file' },
  first_search: { href: '/app/search', label: 'Open the search playground' },
};

export function Home() {
  const steps = useLoad(() => trove.call('GET', '/api/v1/portal/quickstart'));
  const collections = useLoad(() => trove.portal.collections());
  const collection = collections.data?.collections[0]?.name ?? 'products';
  return (
    <section>
      <h1 tabIndex={-1}>Quickstart</h1>
      <p>Four steps from an empty account to your first search. Each one ticks itself off when you have done it.</p>
      <Problem message={steps.error} />
      <ol class="steps">
        {steps.data?.steps.map((step) => (
          <li key={step.id} class={step.completed ? 'done' : ''}>
            <span class="state" role="img" aria-label={step.completed ? 'Done' : 'To do'}>
              {step.completed ? '✓' : '○'}
            </span>
            <div>
              <strong>{step.title}</strong>
              <div class="hint">{step.completed ? `Done ${formatDate(step.completed_at)}` : <Link href={WHERE[step.id]!.href}>{WHERE[step.id]!.label}</Link>}</div>
            </div>
          </li>
        ))}
      </ol>
      <h2>From a program</h2>
      <p>
        Put a key from <Link href="/app/keys">API keys</Link> in <code>TROVE_API_KEY</code>, then:
      </p>
      <Snippet
        title="curl"
        code={[
          `curl -X POST ${baseUrl}/api/v1/upload/${collection}/record/upload \\`,
          `  -H "Authorization: Bearer $TROVE_API_KEY" -F 'file=@records.csv'`,
          `curl -X POST ${baseUrl}/api/v1/search/${collection} \\`,
          `  -H "Authorization: Bearer $TROVE_API_KEY" -H 'Content-Type: application/json' -d '{"query":"bolt"}'`,
        ].join('\n')}
      />
      <Snippet
        title="TypeScript"
        code={[
          `import { openAsBlob } from 'node:fs';`,
          `import { TroveClient } from '@trove/client';`,
          ``,
          `const trove = new TroveClient({ baseUrl: ${JSON.stringify(baseUrl)}, apiKey: process.env.TROVE_API_KEY });`,
          `await trove.uploads.file(${JSON.stringify(collection)}, 'record', { file: await openAsBlob('records.csv') });`,
          `const answer = await trove.search(${JSON.stringify(collection)}, { query: 'bolt' });`,
        ].join('\n')}
      />
    </section>
  );
}
