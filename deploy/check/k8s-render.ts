import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import type { K8sObject } from './k8s-schema';

const run = promisify(execFile);

/**
 * The objects `kubectl kustomize <dir>` writes. kubectl (1.27 or newer: kustomize 5) is required, on every machine
 * that runs this check, CI's included: without it this throws, so the check fails rather than passing unchecked.
 */
export async function kustomize(dir: string): Promise<K8sObject[]> {
  let stdout: string;
  try {
    // The environment passed on explicitly: the one a test sets is then the one kubectl is looked up in.
    ({ stdout } = await run('kubectl', ['kustomize', dir], { maxBuffer: 64 * 1024 * 1024, env: process.env }));
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new Error('kubectl is not on PATH: the Kubernetes manifests cannot be checked without it (kubectl 1.27+, its kustomize builds the overlays)');
    throw new Error(`kubectl kustomize ${dir} failed: ${e.stderr?.trim() || e.message}`);
  }
  return parseAllDocuments(stdout).map((d) => d.toJS() as K8sObject).filter((o) => o !== null);
}

/**
 * Which service calls which, read from the code: a service reaches another only through `ctx.client('<name>')` (the
 * runtime's ServiceClient), so each such call in services/<caller>/src is an edge; the gateway also forwards to every
 * service its route table names (`gatewayUpstreams`).
 */
export function callGraphFromCode(root: string, gatewayUpstreams: string[]): Record<string, string[]> {
  const graph: Record<string, Set<string>> = {};
  const servicesDir = join(root, 'services');
  for (const caller of readdirSync(servicesDir)) {
    const edges = (graph[caller] ??= new Set());
    for (const file of sourceFiles(join(servicesDir, caller, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bclient\(\s*['"]([a-z]+)['"]\s*\)/g)) {
        if (m[1] !== caller) edges.add(m[1]!);
      }
    }
  }
  for (const upstream of gatewayUpstreams) (graph.gateway ??= new Set()).add(upstream);
  return Object.fromEntries(Object.entries(graph).map(([caller, callees]) => [caller, [...callees].sort()]));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => !relative(dir, file).split('/').includes('__tests__'));
}
