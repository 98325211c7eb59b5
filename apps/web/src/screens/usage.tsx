import { trove } from '../api';
import { Problem, useLoad } from '../ui';

export function Usage() {
  const usage = useLoad(() => trove.portal.usage());
  const analytics = useLoad(() => trove.call('GET', '/api/v1/portal/analytics'));
  const u = usage.data as Record<string, unknown> | undefined;
  return (
    <section>
      <h1 tabIndex={-1}>Usage</h1>
      <Problem message={usage.error ?? analytics.error} />
      {u && (
        <div class="card">
          <h2>This month</h2>
          <pre class="status">{JSON.stringify(u, null, 2)}</pre>
        </div>
      )}
      {analytics.data && (
        <div class="card">
          <h2>Open API searches per collection</h2>
          <pre class="status">{JSON.stringify(analytics.data, null, 2)}</pre>
        </div>
      )}
    </section>
  );
}
