import { parse as parseYaml } from 'yaml';

// The package is an ES module with a CommonJS build, which jest and this CommonJS file load.
const { parser } = require('@prometheus-io/lezer-promql') as typeof import('@prometheus-io/lezer-promql', { with: { 'resolution-mode': 'import' } });

/*
 * The checks of deploy/observability/ (the Grafana dashboard and the Prometheus alert rules): their structure, and the
 * metric names their PromQL uses, read with Prometheus' own grammar (lezer-promql, the parser of Prometheus' UI), so a
 * function, keyword, label matcher or string is never taken for a metric.
 */

/** Metrics the rules and dashboard may use that Trove does not serve (docs/observability.md, "External metrics"). */
export const EXTERNAL_METRICS: ReadonlySet<string> = new Set([
  // node exporter, for the disk alert: Trove's data lives on volumes it does not measure.
  'node_filesystem_avail_bytes',
  'node_filesystem_size_bytes',
  // Prometheus' own series of every scrape target.
  'up',
]);

/** Grafana's interval variables, replaced by a duration before parsing (PromQL knows no variables). */
const GRAFANA_VARIABLES = /\$(?:__rate_interval|__interval|__range)|\$\{(?:__rate_interval|__interval|__range)\}/g;

/** The metric names an expression selects; throws on an expression that is not valid PromQL. */
export function metricNames(expression: string): string[] {
  const expr = expression.replace(GRAFANA_VARIABLES, '5m');
  const tree = parser.parse(expr);
  const names = new Set<string>();
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) throw new Error(`not valid PromQL at ${cursor.from}: ${expr}`);
    if (cursor.name === 'VectorSelector') {
      const selector = cursor.node;
      const identifier = selector.getChild('Identifier');
      if (identifier) names.add(expr.slice(identifier.from, identifier.to));
      // {__name__="x"} names a metric too.
      for (const matcher of selector.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []) {
        const label = matcher.getChild('LabelName');
        const op = matcher.getChild('MatchOp');
        const value = matcher.getChild('StringLiteral');
        if (label && op && value && expr.slice(label.from, label.to) === '__name__' && expr.slice(op.from, op.to) === '=') {
          names.add(JSON.parse(expr.slice(value.from, value.to).replace(/^'(.*)'$/, '"$1"')) as string);
        }
      }
    }
  } while (cursor.next());
  return [...names].sort();
}

/** Every name a Prometheus text serves: each family's, and for histograms and summaries their _bucket, _sum, _count. */
export function servedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const [, name, kind] = type as unknown as [string, string, string];
      names.add(name);
      if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
      if (kind === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]!);
  }
  return names;
}

export interface AlertRule {
  alert: string;
  expr: string;
}

/**
 * The alerting rules of a Prometheus rule file, or the problems that make it unfit: groups with a name and rules; each
 * rule an alert with an expr, a `for` duration, labels.severity (critical, warning or info) and annotations with a
 * summary; alert names unique.
 */
export function alertRules(text: string): { rules: AlertRule[]; problems: string[] } {
  const problems: string[] = [];
  const rules: AlertRule[] = [];
  const doc = parseYaml(text) as { groups?: unknown } | null;
  const groups = doc?.groups;
  if (!Array.isArray(groups) || groups.length === 0) return { rules, problems: ['no groups'] };
  const seen = new Set<string>();
  for (const [g, group] of groups.entries()) {
    const { name, rules: groupRules } = (group ?? {}) as { name?: unknown; rules?: unknown };
    if (typeof name !== 'string' || !name) problems.push(`group ${g}: no name`);
    if (!Array.isArray(groupRules) || groupRules.length === 0) {
      problems.push(`group ${String(name ?? g)}: no rules`);
      continue;
    }
    for (const [r, rule] of groupRules.entries()) {
      const { alert, expr, for: holdFor, labels, annotations } = (rule ?? {}) as Record<string, unknown>;
      const where = `group ${String(name ?? g)}, rule ${typeof alert === 'string' ? alert : r}`;
      if (typeof alert !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(alert)) problems.push(`${where}: no alert name`);
      else if (seen.has(alert)) problems.push(`${where}: alert name used twice`);
      else seen.add(alert);
      if (typeof expr !== 'string' || !expr.trim()) problems.push(`${where}: no expr`);
      if (typeof holdFor !== 'string' || !/^(\d+(ms|s|m|h|d|w|y))+$/.test(holdFor)) problems.push(`${where}: 'for' is not a duration`);
      const severity = (labels as { severity?: unknown } | undefined)?.severity;
      if (!['critical', 'warning', 'info'].includes(severity as string)) problems.push(`${where}: labels.severity is not critical, warning or info`);
      const summary = (annotations as { summary?: unknown } | undefined)?.summary;
      if (typeof summary !== 'string' || !summary) problems.push(`${where}: no annotations.summary`);
      if (typeof alert === 'string' && typeof expr === 'string') rules.push({ alert, expr });
    }
  }
  return { rules, problems };
}

/** The PromQL of every panel target of a Grafana dashboard (rows' panels too), with where it is. */
export function dashboardExpressions(dashboard: unknown): Array<{ panel: string; expr: string }> {
  const found: Array<{ panel: string; expr: string }> = [];
  const visit = (panels: unknown) => {
    if (!Array.isArray(panels)) return;
    for (const p of panels as Array<{ title?: string; targets?: Array<{ expr?: unknown }>; panels?: unknown }>) {
      for (const t of p.targets ?? []) if (typeof t.expr === 'string') found.push({ panel: p.title ?? '?', expr: t.expr });
      visit(p.panels);
    }
  };
  visit((dashboard as { panels?: unknown }).panels);
  return found;
}

/** The metric names `expressions` use that `served` lacks and are not external, each with where it is used. */
export function missingMetrics(expressions: Array<{ where: string; expr: string }>, served: Set<string>, external = EXTERNAL_METRICS): string[] {
  const missing: string[] = [];
  for (const { where, expr } of expressions) {
    for (const name of metricNames(expr)) if (!served.has(name) && !external.has(name)) missing.push(`${name} (${where})`);
  }
  return missing;
}
