import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { alertRules, dashboardExpressions, metricNames, missingMetrics, servedNames } from './support/observability-rules';

// The checker of deploy/observability/ on its own (observability.e2e.test.ts runs it against a live /metrics).

const SERVED = `# HELP http_requests_total HTTP requests
# TYPE http_requests_total counter
http_requests_total{service="gateway",status="200"} 3
# HELP http_request_duration_seconds latency
# TYPE http_request_duration_seconds histogram
# HELP trove_event_consumer_lag lag
# TYPE trove_event_consumer_lag gauge
`;

describe('metricNames', () => {
  it('finds the metrics of an expression, not its functions, keywords, labels or strings', () => {
    const expr =
      'sum by (service, rate) (rate(http_requests_total{status=~"5..", route!="trove_not_a_metric"}[5m])) ' +
      '/ on (service) group_left max without (le) (histogram_quantile(0.95, foo_seconds_bucket offset 1h)) or vector(0)';
    expect(metricNames(expr)).toEqual(['foo_seconds_bucket', 'http_requests_total']);
  });

  it("reads a selector by __name__ and Grafana's interval variables", () => {
    expect(metricNames('rate({__name__="trove_x_total", service="a"}[$__rate_interval])')).toEqual(['trove_x_total']);
    expect(metricNames('increase(trove_y_total[${__range}])')).toEqual(['trove_y_total']);
  });

  it('refuses an expression that is not PromQL', () => {
    expect(() => metricNames('sum(rate(http_requests_total[5m])')).toThrow(/not valid PromQL/);
  });
});

describe('servedNames', () => {
  it("lists each family, a histogram's series names and families without samples yet", () => {
    const names = servedNames(SERVED);
    expect([...names].sort()).toEqual([
      'http_request_duration_seconds',
      'http_request_duration_seconds_bucket',
      'http_request_duration_seconds_count',
      'http_request_duration_seconds_sum',
      'http_requests_total',
      'trove_event_consumer_lag',
    ]);
  });
});

describe('missingMetrics', () => {
  it('names a metric a rule uses that /metrics does not serve (a broken rule)', () => {
    const broken = alertRules(`
groups:
  - name: broken
    rules:
      - alert: NoSuchMetric
        expr: rate(trove_does_not_exist_total[5m]) > 0 and on() max(http_requests_total) > 0
        for: 5m
        labels: { severity: warning }
        annotations: { summary: a rule naming a metric that does not exist }
`);
    expect(broken.problems).toEqual([]);
    expect(missingMetrics(broken.rules.map((r) => ({ where: r.alert, expr: r.expr })), servedNames(SERVED))).toEqual([
      'trove_does_not_exist_total (NoSuchMetric)',
    ]);
  });

  it('allows the documented external metrics (node exporter, up) and nothing else', () => {
    const used = [{ where: 'disk', expr: 'node_filesystem_avail_bytes / node_filesystem_size_bytes < 0.1 or up == 0' }];
    expect(missingMetrics(used, servedNames(SERVED))).toEqual([]);
    expect(missingMetrics([{ where: 'x', expr: 'node_load1 > 4' }], servedNames(SERVED))).toEqual(['node_load1 (x)']);
  });
});

describe('alertRules', () => {
  it('names what makes a rule file unfit', () => {
    const { problems } = alertRules(`
groups:
  - name: g
    rules:
      - alert: A
        expr: up == 0
        for: soon
        labels: { severity: page }
      - alert: A
        for: 5m
        labels: { severity: critical }
        annotations: { summary: s }
  - name: empty
    rules: []
`);
    expect(problems).toEqual([
      "group g, rule A: 'for' is not a duration",
      'group g, rule A: labels.severity is not critical, warning or info',
      'group g, rule A: no annotations.summary',
      'group g, rule A: alert name used twice',
      'group g, rule A: no expr',
      'group empty: no rules',
    ]);
    expect(alertRules('groups: []').problems).toEqual(['no groups']);
  });
});

describe('deploy/observability', () => {
  const dir = join(__dirname, '../deploy/observability');

  it('ships alert rules fit for Prometheus, each with valid PromQL', () => {
    const { rules, problems } = alertRules(readFileSync(join(dir, 'alerts.yaml'), 'utf8'));
    expect(problems).toEqual([]);
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining(['TroveHighErrorRate', 'TroveGateway5xx', 'TroveHighLatency', 'TroveIndexingLagHigh', 'TroveConsumerLagHigh', 'TroveCircuitBreakerOpen', 'TroveDiskSpaceLow']),
    );
    for (const rule of rules) expect(metricNames(rule.expr).length).toBeGreaterThan(0);
  });

  it('ships a dashboard whose JSON parses, every panel querying valid PromQL of a Prometheus data source input', () => {
    const dashboard = JSON.parse(readFileSync(join(dir, 'trove-dashboard.json'), 'utf8')) as { uid: string; __inputs: Array<{ name: string }> };
    expect(dashboard.uid).toBe('trove-overview');
    expect(dashboard.__inputs.map((i) => i.name)).toEqual(['DS_PROMETHEUS']);
    const expressions = dashboardExpressions(dashboard);
    expect(expressions.length).toBeGreaterThan(20);
    for (const { expr } of expressions) expect(metricNames(expr).length).toBeGreaterThan(0);
  });
});
