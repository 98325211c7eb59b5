import { startTracing, tracingRequested } from './tracing';

describe('tracingRequested', () => {
  it('is off when no OTEL_* variable asks for traces', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'trove' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
  });

  it('is on with an OTLP endpoint, or a traces exporter other than none', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none,console' })).toBe(true);
  });

  it('is off when the exporter is none or the SDK is disabled, whatever else is set', () => {
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
  });
});

describe('startTracing', () => {
  it('loads nothing of OpenTelemetry when tracing is off', () => {
    const env: Record<string, string> = {};
    const loadedBefore = Object.keys(require.cache).filter((path) => path.includes('@opentelemetry/sdk-node'));

    expect(startTracing(env, 'trove')).toBe(false);

    expect(Object.keys(require.cache).filter((path) => path.includes('@opentelemetry/sdk-node'))).toEqual(loadedBefore);
    expect(env).toEqual({});
  });
});
