import { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import type { NodeSDK } from '@opentelemetry/sdk-node';

/*
 * OpenTelemetry tracing (docs/observability.md, "Tracing"): off unless the standard OTEL_* variables ask for it, and
 * then started by the launcher before anything it instruments is loaded. This file loads nothing at the top but
 * node:module, so the launcher can ask it first; the SDK and its instrumentations are required only when tracing is on,
 * so a process without it neither loads nor runs any of it.
 */

type Env = Record<string, string | undefined>;

/** The CommonJS builds of the SDK, as the services load express, http and pg: one copy of each, patched in place. */
const requireCjs = createRequire(__filename);

/** Paths whose requests make no span: probes and scrapes, which would outnumber every request a person sends. */
const UNTRACED = /^\/(?:api\/v\d+\/)?(?:health(?:\/|$|\?)|metrics(?:$|\?))/;

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}

/**
 * Whether the environment asks for traces: OTEL_SDK_DISABLED is not true, and OTEL_TRACES_EXPORTER names an exporter
 * other than `none`, or, with it unset, an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or its _TRACES_ form).
 */
export function tracingRequested(env: Env): boolean {
  if (isTrue(env.OTEL_SDK_DISABLED)) return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (exporters.length > 0) return exporters.some((e) => e !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

let sdk: NodeSDK | undefined;

/**
 * Starts the OpenTelemetry SDK when the environment asks for traces (tracingRequested), with the http, express and pg
 * instrumentations and W3C trace context propagation (the SDK's default): the gateway's forwarded requests and every
 * call between services carry `traceparent`, so one trace follows a request through them. The SDK reads every other
 * standard variable itself (exporter protocol and endpoint, headers, sampler, resource attributes). Metrics and logs stay
 * Prometheus's and pino's: OTEL_METRICS_EXPORTER and OTEL_LOGS_EXPORTER default to `none` here. `serviceName` is the
 * resource's service.name unless OTEL_SERVICE_NAME sets it. Answers whether tracing started.
 */
export function startTracing(env: Env, serviceName: string): boolean {
  if (sdk || !tracingRequested(env)) return false;
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  env.OTEL_SERVICE_NAME ??= serviceName;
  const { NodeSDK } = requireCjs('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } = requireCjs('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } = requireCjs('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } = requireCjs('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req: IncomingMessage) => UNTRACED.test(req.url ?? '') }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
  return true;
}

/** Sends the spans still buffered and stops the SDK (the launcher's shutdown); nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}
