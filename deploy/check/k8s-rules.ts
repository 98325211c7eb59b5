import { objectName, type K8sObject } from './k8s-schema';

/*
 * What the schemas cannot see: that the objects of one overlay's output fit together and keep Trove's rules. Each
 * function returns one line per problem, naming the object; an empty list means the rule holds.
 */

type Labels = Record<string, string>;

interface Selector {
  matchLabels?: Labels;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

interface Probe {
  httpGet?: { path?: string; port?: string | number };
  exec?: unknown;
}

interface Container {
  name: string;
  image?: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; valueFrom?: { secretKeyRef?: KeyRef; configMapKeyRef?: KeyRef } }[];
  envFrom?: { configMapRef?: { name: string; optional?: boolean }; secretRef?: { name: string; optional?: boolean } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds: number } } };
}

interface KeyRef {
  name: string;
  key: string;
  optional?: boolean;
}

interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { drop?: string[] };
  seccompProfile?: { type?: string };
}

interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string }; emptyDir?: unknown }[];
  securityContext?: SecurityContext;
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
}

/** A workload's pod template, with what the rules need of its owner. */
interface Workload {
  object: K8sObject;
  kind: 'Deployment' | 'StatefulSet' | 'Job';
  name: string;
  labels: Labels;
  pod: PodSpec;
  replicas?: number;
  claimTemplates: string[];
}

const spec = <T>(o: K8sObject) => (o.spec ?? {}) as T;
const ofKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);

function workloads(objects: K8sObject[]): Workload[] {
  return objects.flatMap((o): Workload[] => {
    if (o.kind !== 'Deployment' && o.kind !== 'StatefulSet' && o.kind !== 'Job') return [];
    const s = spec<{ replicas?: number; template: { metadata?: { labels?: Labels }; spec: PodSpec }; volumeClaimTemplates?: { metadata: { name: string } }[] }>(o);
    return [
      {
        object: o,
        kind: o.kind,
        name: o.metadata?.name ?? '?',
        labels: s.template.metadata?.labels ?? {},
        pod: s.template.spec,
        replicas: s.replicas,
        claimTemplates: (s.volumeClaimTemplates ?? []).map((c) => c.metadata.name),
      },
    ];
  });
}

/** Whether a label selector selects these labels (an empty selector selects everything). */
export function selects(selector: Selector | undefined, labels: Labels): boolean {
  if (!selector) return false;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpression = (selector.matchExpressions ?? []).every((e) => {
    const value = labels[e.key];
    switch (e.operator) {
      case 'In':
        return value !== undefined && (e.values ?? []).includes(value);
      case 'NotIn':
        return value === undefined || !(e.values ?? []).includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        return false;
    }
  });
  return byLabel && byExpression;
}

/** The Secrets an overlay refers to but must not contain, each with the keys its documentation promises. */
export type ExternalSecrets = Record<string, { keys: string[]; documentedIn: string }>;

/**
 * Every reference resolves: a Service's selector matches pods that have its target port, an HPA or PDB targets a
 * workload of the output, an Ingress backend is a Service's port, each ConfigMap and Secret a container or volume names
 * is in the output (or is a documented external Secret with that key), and each volume mount names a volume.
 */
export function referenceProblems(objects: K8sObject[], external: ExternalSecrets): string[] {
  const out: string[] = [];
  const pods = workloads(objects);
  const configMaps = new Map(ofKind(objects, 'ConfigMap').map((o) => [o.metadata?.name, Object.keys((o.data as Labels | undefined) ?? {})]));
  const secrets = new Map(ofKind(objects, 'Secret').map((o) => [o.metadata?.name, Object.keys({ ...((o.data as Labels | undefined) ?? {}), ...((o.stringData as Labels | undefined) ?? {}) })]));
  const services = ofKind(objects, 'Service');

  for (const svc of services) {
    const s = spec<{ selector?: Labels; ports?: { name?: string; port: number; targetPort?: string | number }[] }>(svc);
    const matched = pods.filter((w) => w.kind !== 'Job' && s.selector && selects({ matchLabels: s.selector }, w.labels));
    if (matched.length === 0) {
      out.push(`${objectName(svc)}: selector ${JSON.stringify(s.selector ?? {})} matches no pod of a Deployment or StatefulSet`);
      continue;
    }
    for (const port of s.ports ?? []) {
      const target = port.targetPort ?? port.port;
      for (const w of matched) {
        const has = w.pod.containers.some((c) => (c.ports ?? []).some((p) => (typeof target === 'string' ? p.name === target : p.containerPort === target)));
        if (!has) out.push(`${objectName(svc)}: port ${port.name ?? port.port} targets ${target}, which no container of ${w.kind}/${w.name} exposes`);
      }
    }
  }

  const deployments = new Set(pods.filter((w) => w.kind === 'Deployment').map((w) => w.name));
  for (const hpa of ofKind(objects, 'HorizontalPodAutoscaler')) {
    const ref = spec<{ scaleTargetRef: { kind: string; name: string } }>(hpa).scaleTargetRef;
    if (ref.kind !== 'Deployment' || !deployments.has(ref.name)) out.push(`${objectName(hpa)}: targets ${ref.kind}/${ref.name}, which is not a Deployment of this output`);
    const target = pods.find((w) => w.kind === 'Deployment' && w.name === ref.name);
    // An apply would set the count back to this number, fighting the autoscaler.
    if (target?.replicas !== undefined) out.push(`${objectName(hpa)}: Deployment/${ref.name} sets replicas (${target.replicas}), which the autoscaler owns`);
  }
  for (const pdb of ofKind(objects, 'PodDisruptionBudget')) {
    const selector = spec<{ selector?: Selector }>(pdb).selector;
    if (!pods.some((w) => w.kind !== 'Job' && selects(selector, w.labels))) out.push(`${objectName(pdb)}: selector matches no pod of a Deployment or StatefulSet`);
  }

  for (const ingress of ofKind(objects, 'Ingress')) {
    const rules = spec<{ rules?: { http?: { paths: { backend: { service?: { name: string; port: { name?: string; number?: number } } } }[] } }[] }>(ingress).rules ?? [];
    for (const path of rules.flatMap((r) => r.http?.paths ?? [])) {
      const backend = path.backend.service;
      if (!backend) continue;
      const svc = services.find((s) => s.metadata?.name === backend.name);
      const ports = spec<{ ports?: { name?: string; port: number }[] }>(svc ?? {}).ports ?? [];
      if (!svc) out.push(`${objectName(ingress)}: backend Service/${backend.name} is not in this output`);
      else if (!ports.some((p) => (backend.port.name !== undefined ? p.name === backend.port.name : p.port === backend.port.number))) {
        out.push(`${objectName(ingress)}: Service/${backend.name} has no port ${backend.port.name ?? backend.port.number}`);
      }
    }
  }

  const keyProblem = (where: string, kind: 'ConfigMap' | 'Secret', ref: KeyRef | { name: string; optional?: boolean }) => {
    if (ref.optional) return;
    const key = 'key' in ref ? ref.key : undefined;
    const inOutput = (kind === 'ConfigMap' ? configMaps : secrets).get(ref.name);
    const documented = kind === 'Secret' ? external[ref.name] : undefined;
    const keys = inOutput ?? documented?.keys;
    if (!keys) out.push(`${where}: ${kind} ${ref.name} is neither in this output nor a documented external Secret`);
    else if (key !== undefined && !keys.includes(key)) {
      out.push(`${where}: ${kind} ${ref.name} has no key ${key}${documented && !inOutput ? ` (${documented.documentedIn})` : ''}`);
    }
  };
  for (const w of pods) {
    const volumes = new Set([...(w.pod.volumes ?? []).map((v) => v.name), ...w.claimTemplates]);
    for (const v of w.pod.volumes ?? []) {
      if (v.configMap) keyProblem(`${w.kind}/${w.name} volume ${v.name}`, 'ConfigMap', v.configMap);
      if (v.secret) keyProblem(`${w.kind}/${w.name} volume ${v.name}`, 'Secret', { name: v.secret.secretName });
    }
    for (const c of [...w.pod.containers, ...(w.pod.initContainers ?? [])]) {
      const where = `${w.kind}/${w.name} container ${c.name}`;
      for (const from of c.envFrom ?? []) {
        if (from.configMapRef) keyProblem(where, 'ConfigMap', from.configMapRef);
        if (from.secretRef) keyProblem(where, 'Secret', from.secretRef);
      }
      for (const e of c.env ?? []) {
        if (e.valueFrom?.configMapKeyRef) keyProblem(`${where} env ${e.name}`, 'ConfigMap', e.valueFrom.configMapKeyRef);
        if (e.valueFrom?.secretKeyRef) keyProblem(`${where} env ${e.name}`, 'Secret', e.valueFrom.secretKeyRef);
      }
      for (const m of c.volumeMounts ?? []) if (!volumes.has(m.name)) out.push(`${where}: mounts volume ${m.name}, which the pod does not declare`);
    }
  }
  return out;
}

/** Trove's settings as its pods see them (the ConfigMap every container reads), for the rules that follow them. */
export interface TroveSettings {
  DATA_DIR: string;
  /** Node's temporary folder (os.tmpdir()), where file uploads spool; unset, /tmp. */
  TMPDIR?: string;
  SHUTDOWN_TIMEOUT_MS: number;
  /** The port each service listens on when it runs alone (PORT, <NAME>_PORT), by service name. */
  ports: Record<string, number>;
  UPLOAD_MAX_BYTES: number;
  UPLOAD_TIMEOUT_MS: number;
}

const SECURITY = 'the restricted Pod Security Standard';

/**
 * Every container of every workload runs as Trove's must: the restricted security context (non-root, read-only root,
 * no privilege escalation, every capability dropped, the runtime's seccomp profile), CPU and memory requested and memory
 * limited, an image pinned to a version; a Trove container has DATA_DIR and TMPDIR on writable volumes, and a Trove
 * Deployment runs the service it is named after (--target) on the port that service listens on. A long-running one (Deployment, StatefulSet) also has startup, readiness and
 * liveness probes; a Trove service probes /health/ready for readiness and /health for liveness, waits in preStop, and
 * gets a grace period covering that wait and its shutdown (SHUTDOWN_TIMEOUT_MS, twice for ingestion, whose
 * asynchronous uploads get as long again after the HTTP drain) with 5 s to close.
 */
export function podProblems(objects: K8sObject[], settings: TroveSettings): string[] {
  const out: string[] = [];
  for (const w of workloads(objects)) {
    const podSecurity = w.pod.securityContext ?? {};
    for (const c of [...w.pod.containers, ...(w.pod.initContainers ?? [])]) {
      const where = `${w.kind}/${w.name} container ${c.name}`;
      const sc = c.securityContext ?? {};
      const nonRoot = (sc.runAsNonRoot ?? podSecurity.runAsNonRoot) === true;
      if (!nonRoot) out.push(`${where}: runAsNonRoot is not true (${SECURITY})`);
      if ((sc.runAsUser ?? podSecurity.runAsUser) === 0) out.push(`${where}: runs as user 0`);
      if (sc.allowPrivilegeEscalation !== false) out.push(`${where}: allowPrivilegeEscalation is not false (${SECURITY})`);
      if (sc.readOnlyRootFilesystem !== true) out.push(`${where}: readOnlyRootFilesystem is not true`);
      if (!(sc.capabilities?.drop ?? []).includes('ALL')) out.push(`${where}: capabilities do not drop ALL (${SECURITY})`);
      const seccomp = sc.seccompProfile?.type ?? podSecurity.seccompProfile?.type;
      if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') out.push(`${where}: no seccompProfile RuntimeDefault (${SECURITY})`);
      for (const r of ['cpu', 'memory']) if (!c.resources?.requests?.[r]) out.push(`${where}: no ${r} request`);
      if (!c.resources?.limits?.memory) out.push(`${where}: no memory limit`);
      const tag = imageTag(c.image ?? '');
      if (!tag || tag === 'latest') out.push(`${where}: image ${c.image ?? '(none)'} is not pinned to a version`);

      if (isTrove(w)) {
        for (const [name, path] of [['DATA_DIR', settings.DATA_DIR], ['TMPDIR', settings.TMPDIR ?? '/tmp']] as const) {
          const onVolume = (c.volumeMounts ?? []).some((m) => !m.readOnly && (path === m.mountPath || path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`)));
          if (!onVolume) out.push(`${where}: ${name} ${path} is on no writable volume, and the root filesystem is read-only`);
        }
      }

      if (w.kind === 'Job') continue;
      if (isTrove(w)) {
        if (!(c.args ?? []).includes(`--target=${w.name}`)) out.push(`${where}: does not run --target=${w.name}`);
        const listens = settings.ports[w.name];
        const http = (c.ports ?? []).find((p) => p.name === 'http')?.containerPort;
        if (listens !== undefined && http !== listens) out.push(`${where}: its http port is ${http ?? 'missing'}, but ${w.name} listens on ${listens}`);
      }
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'] as const) if (!c[probe]) out.push(`${where}: has no ${probe}`);
      if (!isTrove(w)) continue;
      if (c.readinessProbe && c.readinessProbe.httpGet?.path !== '/health/ready') out.push(`${where}: readinessProbe does not ask /health/ready`);
      if (c.livenessProbe && c.livenessProbe.httpGet?.path !== '/health') out.push(`${where}: livenessProbe does not ask /health`);
      const wait = preStopSeconds(c);
      if (wait === undefined) out.push(`${where}: no preStop wait, so it may get SIGTERM while endpoints still send it requests`);
      const drains = w.name === 'ingestion' ? 2 : 1;
      const needed = (wait ?? 0) + (drains * settings.SHUTDOWN_TIMEOUT_MS) / 1000 + 5;
      const grace = w.pod.terminationGracePeriodSeconds ?? 30;
      if (grace < needed) out.push(`${w.kind}/${w.name}: terminationGracePeriodSeconds ${grace} is shorter than its preStop and shutdown (${needed} s)`);
    }
  }
  return out;
}

const isTrove = (w: Workload) => w.labels['app.kubernetes.io/name'] === 'trove';

function imageTag(image: string): string | undefined {
  const withoutDigest = image.split('@')[0]!;
  const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf('/') + 1);
  const colon = lastSegment.indexOf(':');
  return image.includes('@sha256:') ? 'digest' : colon < 0 ? undefined : lastSegment.slice(colon + 1);
}

function preStopSeconds(c: Container): number | undefined {
  const preStop = c.lifecycle?.preStop;
  if (preStop?.sleep) return preStop.sleep.seconds;
  const command = preStop?.exec?.command ?? [];
  return command[0] === 'sleep' && Number.isFinite(Number(command[1])) ? Number(command[1]) : undefined;
}

/**
 * The Ingress lets through what Trove accepts: a body of UPLOAD_MAX_BYTES and its multipart framing, streamed to the
 * gateway unbuffered, and answers that take up to UPLOAD_TIMEOUT_MS (ingress-nginx's annotations).
 */
export function ingressProblems(objects: K8sObject[], settings: TroveSettings): string[] {
  const out: string[] = [];
  const ingresses = ofKind(objects, 'Ingress');
  if (ingresses.length === 0) out.push('no Ingress: nothing takes traffic from outside');
  for (const ingress of ingresses) {
    const a = ingress.metadata?.annotations ?? {};
    const at = (name: string) => a[`nginx.ingress.kubernetes.io/${name}`];
    const body = bytes(at('proxy-body-size'));
    if (body === undefined || (body !== 0 && body < settings.UPLOAD_MAX_BYTES * 1.05)) {
      out.push(`${objectName(ingress)}: proxy-body-size ${at('proxy-body-size') ?? '(default 1m)'} refuses an upload of UPLOAD_MAX_BYTES (${settings.UPLOAD_MAX_BYTES}) with its framing`);
    }
    if (at('proxy-request-buffering') !== 'off') out.push(`${objectName(ingress)}: proxy-request-buffering is not off: uploads would be spooled whole before reaching Trove`);
    if (at('proxy-buffering') !== 'off') out.push(`${objectName(ingress)}: proxy-buffering is not off: streamed answers would arrive in bursts`);
    for (const timeout of ['proxy-read-timeout', 'proxy-send-timeout']) {
      const seconds = Number(at(timeout) ?? 60);
      if (!(seconds * 1000 > settings.UPLOAD_TIMEOUT_MS)) out.push(`${objectName(ingress)}: ${timeout} ${seconds} s ends an upload that may take UPLOAD_TIMEOUT_MS (${settings.UPLOAD_TIMEOUT_MS} ms)`);
    }
  }
  return out;
}

/** nginx's size spelling (`64m`, `1g`, `0` for none) in bytes. */
function bytes(size: string | undefined): number | undefined {
  const m = /^(\d+)([kmg]?)$/i.exec(size ?? '');
  if (!m) return undefined;
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * unit;
}

/** Which service calls which (caller -> callees), as found in the code. */
export type CallGraph = Record<string, string[]>;

/** Where a connection may come from: a pod of this namespace, or any pod of another namespace. */
export interface Source {
  name: string;
  namespace: Labels;
  pod: Labels;
  sameNamespace: boolean;
}

interface PolicyPeer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: unknown;
}

interface PolicySpec {
  podSelector: Selector;
  policyTypes?: string[];
  ingress?: { from?: PolicyPeer[]; ports?: { port?: string | number }[] }[];
}

/** Whether the output's NetworkPolicies let `source` open `port` (a named container port) on pods with `labels`. */
export function admits(objects: K8sObject[], labels: Labels, source: Source, port: string): boolean {
  const policies = ofKind(objects, 'NetworkPolicy')
    .map((o) => spec<PolicySpec>(o))
    .filter((p) => selects(p.podSelector, labels) && (p.policyTypes ?? ['Ingress']).includes('Ingress'));
  // A pod no policy selects is not isolated: everything reaches it.
  if (policies.length === 0) return true;
  const peerAdmits = (peer: PolicyPeer) => {
    if (peer.ipBlock) return true;
    const namespaceOk = peer.namespaceSelector ? selects(peer.namespaceSelector, source.namespace) : source.sameNamespace;
    const podOk = peer.podSelector ? selects(peer.podSelector, source.pod) : true;
    return namespaceOk && podOk;
  };
  return policies.some((p) =>
    (p.ingress ?? []).some((rule) => (!rule.from || rule.from.some(peerAdmits)) && (!rule.ports || rule.ports.some((q) => q.port === undefined || q.port === port))),
  );
}

/** Where traffic may come from besides Trove's own pods: the ingress controller, Prometheus, and anything else. */
export interface OutsideSources {
  ingressController: Source;
  monitoring: Source;
  elsewhere: Source;
}

/**
 * Each Trove service's pods accept on their http port exactly what the call graph says: their callers among Trove's
 * services, Prometheus (for /metrics), and, for the gateway alone, the ingress controller. No pod accepts anything else.
 */
export function networkProblems(objects: K8sObject[], calls: CallGraph, outside: OutsideSources): string[] {
  const out: string[] = [];
  const trove = workloads(objects).filter((w) => isTrove(w) && w.kind === 'Deployment');
  const sourceOf = (w: Workload): Source => ({ name: w.name, namespace: {}, pod: w.labels, sameNamespace: true });
  for (const target of trove) {
    for (const caller of trove) {
      if (caller === target) continue;
      const needed = (calls[caller.name] ?? []).includes(target.name);
      const allowed = admits(objects, target.labels, sourceOf(caller), 'http');
      if (needed && !allowed) out.push(`NetworkPolicy: ${caller.name} cannot reach ${target.name}, which it calls`);
      if (!needed && allowed) out.push(`NetworkPolicy: ${target.name} admits ${caller.name}, which does not call it`);
    }
    const fromController = admits(objects, target.labels, outside.ingressController, 'http');
    if (target.name === 'gateway' && !fromController) out.push(`NetworkPolicy: the ingress controller (${outside.ingressController.name}) cannot reach the gateway`);
    if (target.name !== 'gateway' && fromController) out.push(`NetworkPolicy: ${target.name} admits the ingress controller: only the gateway takes traffic from outside`);
    if (!admits(objects, target.labels, outside.monitoring, 'http')) out.push(`NetworkPolicy: Prometheus (${outside.monitoring.name}) cannot scrape ${target.name}`);
    if (admits(objects, target.labels, outside.elsewhere, 'http')) out.push(`NetworkPolicy: ${target.name} admits pods of any namespace (${outside.elsewhere.name})`);
  }
  return out;
}

/** The label of what `kubectl apply -l trove/phase=migrate` applies first: the migration Job and all it needs. */
const PHASE = 'trove/phase';

/**
 * The migration Job can run from the objects labelled trove/phase=migrate alone (the namespace, its ServiceAccount and
 * ConfigMaps), before anything else of the overlay is applied.
 */
export function migratePhaseProblems(objects: K8sObject[]): string[] {
  const first = objects.filter((o) => o.metadata?.labels?.[PHASE] === 'migrate');
  const jobs = workloads(first).filter((w) => w.kind === 'Job');
  if (jobs.length === 0) return [`no Job is labelled ${PHASE}=migrate: nothing migrates before the rollout`];
  const has = (kind: string, name: string | undefined) => first.some((o) => o.kind === kind && o.metadata?.name === name);
  const out: string[] = [];
  for (const job of jobs) {
    const where = `Job/${job.name}`;
    const namespace = job.object.metadata?.namespace;
    if (namespace && !has('Namespace', namespace)) out.push(`${where}: its Namespace ${namespace} is not labelled ${PHASE}=migrate`);
    if (job.pod.serviceAccountName && !has('ServiceAccount', job.pod.serviceAccountName)) {
      out.push(`${where}: its ServiceAccount ${job.pod.serviceAccountName} is not labelled ${PHASE}=migrate`);
    }
    for (const c of job.pod.containers) {
      const maps = [...(c.envFrom ?? []).map((f) => f.configMapRef?.name), ...(c.env ?? []).map((e) => e.valueFrom?.configMapKeyRef?.name)];
      for (const name of maps) if (name && !has('ConfigMap', name)) out.push(`${where}: its ConfigMap ${name} is not labelled ${PHASE}=migrate`);
    }
  }
  return out;
}
