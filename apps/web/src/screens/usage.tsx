import { useState } from 'preact/hooks';
import { TroveError } from '@trove/client';
import { baseUrl, portal, problemOf, trove } from '../api';
import { bars, share } from '../chart';
import { Problem, formatDate, formatNumber, useLoad } from '../ui';

/** One metered figure against the plan: a bar when the plan limits it. */
function Metered({ label, used, included }: { label: string; used: number; included: number | null }) {
  const percent = share(used, included);
  return (
    <div class="metered">
      <label>
        {label}: {formatNumber(used)} {included === null ? '(unlimited)' : `of ${formatNumber(included)}`}
        {percent !== undefined && <meter min={0} max={100} low={80} high={95} optimum={0} value={percent} />}
      </label>
    </div>
  );
}

/** Open searches per collection as a bar chart (SVG, with the figures in text for screen readers). */
function OpenSearchChart({ items }: { items: Array<{ label: string; value: number }> }) {
  const drawn = bars(items);
  const row = 28;
  return (
    <figure>
      <svg class="chart" viewBox={`0 0 400 ${Math.max(drawn.length, 1) * row}`} role="img" aria-labelledby="open-chart-caption">
        {drawn.map((b, i) => (
          <g key={b.label} transform={`translate(0 ${i * row})`}>
            <text x="0" y="18" class="chart-label">
              {b.label}
            </text>
            <rect x="140" y="6" height="16" width={(b.percent / 100) * 200} class="chart-bar" />
            <text x={146 + (b.percent / 100) * 200} y="19" class="chart-value">
              {formatNumber(b.value)}
            </text>
          </g>
        ))}
      </svg>
      <figcaption id="open-chart-caption">Open API searches per collection this month</figcaption>
    </figure>
  );
}

/**
 * Searches of each day of the month so far as columns (SVG), the figures in a table under it for screen readers and
 * for reading exact numbers; days are UTC, as the period is.
 */
function SearchesPerDayChart({ days }: { days: ReadonlyArray<{ date: string; count: number }> }) {
  const drawn = bars(days.map((d) => ({ label: d.date, value: d.count })));
  const column = 16;
  const top = 18;
  const height = 100;
  const left = 4;
  const width = left + Math.max(drawn.length, 1) * column;
  const most = Math.max(0, ...days.map((d) => d.count));
  const total = days.reduce((sum, d) => sum + d.count, 0);
  return (
    <figure>
      <svg
        class="chart chart-days"
        viewBox={`0 0 ${width} ${top + height + 18}`}
        role="img"
        aria-labelledby="days-chart-caption"
        aria-describedby="days-chart-table"
      >
        <line x1={left} x2={width} y1={top + height} y2={top + height} class="chart-axis" />
        <text x={left} y="12" class="chart-label">
          {`most in a day: ${formatNumber(most)}`}
        </text>
        {drawn.map((b, i) => {
          const h = (b.percent / 100) * height;
          const day = Number(b.label.slice(8));
          return (
            <g key={b.label} transform={`translate(${left + i * column} 0)`}>
              <rect x="2" y={top + height - h} width={column - 4} height={h} class="chart-bar">
                <title>{`${b.label}: ${formatNumber(b.value)} searches`}</title>
              </rect>
              {(day === 1 || day % 5 === 0 || i === drawn.length - 1) && (
                <text x={column / 2} y={top + height + 14} class="chart-label chart-tick">
                  {day}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption id="days-chart-caption">
        Searches per day this month (UTC): {formatNumber(total)} over {days.length} {days.length === 1 ? 'day' : 'days'}
      </figcaption>
      <details>
        <summary>The numbers</summary>
        <div class="table-wrap">
          <table id="days-chart-table" aria-label="Searches per day">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Searches</th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.date}>
                  <th scope="row">{d.date}</th>
                  <td>{formatNumber(d.count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/** Billing, in the cloud only: the plan, its subscription, and checkout for a paid plan. */
function Billing() {
  const status = useLoad(async () => {
    try {
      return await trove.call('GET', '/api/v1/portal/billing/status');
    } catch (err) {
      // The billing routes answer only in the cloud; elsewhere there is nothing to pay.
      if (err instanceof TroveError && err.status === 404) return null;
      throw err;
    }
  });
  const [error, setError] = useState<string>();
  if (status.data === null) return <p class="hint">This deployment is not billed: every plan limit here is set by its operator.</p>;
  if (!status.data) return <Problem message={status.error} />;
  const checkout = async (plan: 'pro' | 'scale') => {
    try {
      const here = `${baseUrl}/app/usage`;
      const { checkout_url } = await portal(() => trove.call('POST', '/api/v1/portal/billing/checkout', { body: { plan, success_url: here, cancel_url: here } }));
      window.location.assign(checkout_url);
    } catch (err) {
      setError(problemOf(err));
    }
  };
  return (
    <div>
      <p>
        Plan <strong>{status.data.plan}</strong>, {status.data.has_subscription ? `subscribed until ${formatDate(status.data.billing_period_end)}` : 'no subscription'}.
      </p>
      <div class="actions">
        <button type="button" onClick={() => void checkout('pro')}>
          Upgrade to Pro
        </button>
        <button type="button" class="secondary" onClick={() => void checkout('scale')}>
          Upgrade to Scale
        </button>
      </div>
      <Problem message={error} />
    </div>
  );
}

export function Usage() {
  const usage = useLoad(() => trove.portal.usage());
  const analytics = useLoad(() => trove.call('GET', '/api/v1/portal/analytics'));
  const u = usage.data;
  return (
    <section>
      <h1 tabIndex={-1}>Usage</h1>
      <Problem message={usage.error ?? analytics.error} />
      {u && (
        <div class="card">
          <h2>
            This month ({u.period}) on the {u.plan} plan
          </h2>
          <Metered label="Records" used={u.records.used} included={u.records.included} />
          <Metered label="Searches" used={u.searches.used} included={u.searches.included} />
          <SearchesPerDayChart days={u.searches_by_day} />
          <p class="hint">
            {formatNumber(u.rate_limit.requests_per_minute)} requests and {formatNumber(u.rate_limit.search_per_minute)} searches a minute;{' '}
            {u.rate_limit.max_collections === -1 ? 'any number of collections' : `up to ${formatNumber(u.rate_limit.max_collections)} collections`}.
            {u.estimated_overage_total > 0 && ` Overage so far: €${u.estimated_overage_total.toFixed(2)}.`}
          </p>
        </div>
      )}
      {analytics.data && (
        <div class="card">
          <h2>Open API</h2>
          <p>
            Searches through the Open API that found your public records this month: <strong>{formatNumber(analytics.data.total_open_searches)}</strong>.
          </p>
          {analytics.data.collections.length > 0 && (
            <>
              <OpenSearchChart items={analytics.data.collections.map((c) => ({ label: c.collection, value: c.open_searches }))} />
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Collection</th>
                      <th scope="col">Open searches</th>
                      <th scope="col">Public records</th>
                      <th scope="col">Records</th>
                    </tr>
                  </thead>
                  <tbody>
                    {analytics.data.collections.map((c) => (
                      <tr key={c.collection}>
                        <th scope="row">{c.collection}</th>
                        <td>{formatNumber(c.open_searches)}</td>
                        <td>{formatNumber(c.public_count)}</td>
                        <td>{formatNumber(c.record_count)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </div>
      )}
      <div class="card">
        <h2>Billing</h2>
        <Billing />
      </div>
    </section>
  );
}
