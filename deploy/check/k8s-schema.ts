import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { createGenerator } from 'ts-json-schema-generator';

/*
 * Strict JSON schemas of the Kubernetes kinds the manifests use, made from `kubernetes-types` (TypeScript declarations
 * generated from the Kubernetes OpenAPI document, required fields non-optional) by ts-json-schema-generator, with
 * every object closed to properties it does not declare, as `kubectl apply --validate=strict` is. No npm package ships
 * strict schemas of a current Kubernetes: kubernetes-models' validators accept unknown fields, the packaged copies of
 * the kubernetes-json-schema repository stop at 1.17, and Debian has none.
 */

/** Each kind the manifests may hold, by apiVersion and kind, with the module and type that declare it. */
const KINDS = {
  'v1/Namespace': ['core/v1', 'Namespace'],
  'v1/ServiceAccount': ['core/v1', 'ServiceAccount'],
  'v1/ConfigMap': ['core/v1', 'ConfigMap'],
  'v1/Secret': ['core/v1', 'Secret'],
  'v1/Service': ['core/v1', 'Service'],
  'apps/v1/Deployment': ['apps/v1', 'Deployment'],
  'apps/v1/StatefulSet': ['apps/v1', 'StatefulSet'],
  'batch/v1/Job': ['batch/v1', 'Job'],
  'autoscaling/v2/HorizontalPodAutoscaler': ['autoscaling/v2', 'HorizontalPodAutoscaler'],
  'policy/v1/PodDisruptionBudget': ['policy/v1', 'PodDisruptionBudget'],
  'networking.k8s.io/v1/NetworkPolicy': ['networking/v1', 'NetworkPolicy'],
  'networking.k8s.io/v1/Ingress': ['networking/v1', 'Ingress'],
} as const;

/** A Kubernetes object as kustomize writes it. */
export interface K8sObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** `Deployment/gateway`: how problems name an object. */
export const objectName = (o: K8sObject) => `${o.kind ?? '?'}/${o.metadata?.name ?? '?'}`;

/** Validates objects against the strict schemas; build once (a few seconds: it compiles the declarations). */
export class KubernetesSchemas {
  private readonly validators: Map<string, ValidateFunction>;

  constructor() {
    const typesDir = dirname(require.resolve('kubernetes-types/package.json'));
    // The generator reads one entry file: an interface naming each kind, written beside nothing of ours.
    const dir = mkdtempSync(join(tmpdir(), 'trove-k8s-schema-'));
    try {
      const entry = join(dir, 'kinds.ts');
      const imports = Object.entries(KINDS).map(([, [module, type]], i) => `import type { ${type} as K${i} } from '${join(typesDir, module)}';`);
      const fields = Object.keys(KINDS).map((key, i) => `  '${key}': K${i};`);
      writeFileSync(entry, `${imports.join('\n')}\nexport interface Kinds {\n${fields.join('\n')}\n}\n`);
      const schema = createGenerator({ path: entry, type: 'Kinds', skipTypeCheck: true, expose: 'all', topRef: true, jsDoc: 'none', additionalProperties: false }).createSchema('Kinds');
      const ajv = new Ajv({ allErrors: true, strict: false });
      ajv.addSchema(schema, 'k8s');
      this.validators = new Map(Object.keys(KINDS).map((key) => [key, ajv.compile({ $ref: `k8s#/definitions/Kinds/properties/${jsonPointer(key)}` })]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** One line per problem: an object of a kind with no schema here, or each way it breaks its kind's schema. */
  problems(objects: K8sObject[]): string[] {
    const out: string[] = [];
    for (const o of objects) {
      const validate = this.validators.get(`${o.apiVersion}/${o.kind}`);
      if (!validate) {
        out.push(`${objectName(o)}: no schema for ${o.apiVersion} ${o.kind} (deploy/check/k8s-schema.ts lists the kinds)`);
        continue;
      }
      if (!validate(o)) out.push(...describe(validate.errors ?? []).map((e) => `${objectName(o)}: ${e}`));
    }
    return out;
  }
}

function jsonPointer(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

/** Ajv's errors, one line each: where, and what (the unknown property by name). */
function describe(errors: ErrorObject[]): string[] {
  const lines = errors.map((e) => {
    const at = e.instancePath || '/';
    if (e.keyword === 'additionalProperties') return `${at}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
    return `${at}: ${e.message ?? e.keyword}`;
  });
  return [...new Set(lines)];
}
