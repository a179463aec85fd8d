/**
 * The observability settings of config.ts as a table: LATCH_METRICS_PORT/HOST, LATCH_SERVER_TIMING, and tracing
 * from the standard OTEL_* variables (OpenTelemetry "SDK Environment Variables", "OTLP Exporter Configuration").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

const load = (env: Record<string, string>) => loadConfig({ LATCH_DATABASE_URL: 'sqlite::memory:', ...env });

test('metrics are off unless LATCH_METRICS_PORT is set; they bind 127.0.0.1 unless told otherwise', () => {
  assert.equal(load({}).metricsPort, null);
  assert.equal(load({ LATCH_METRICS_PORT: '' }).metricsPort, null);
  assert.deepEqual([load({ LATCH_METRICS_PORT: '9464' }).metricsPort, load({ LATCH_METRICS_PORT: '9464' }).metricsHost], [9464, '127.0.0.1']);
  assert.equal(load({ LATCH_METRICS_PORT: '9464', LATCH_METRICS_HOST: '0.0.0.0' }).metricsHost, '0.0.0.0');
  assert.equal(load({ LATCH_METRICS_PORT: '0' }).metricsPort, 0);
  for (const bad of ['-1', '65536', 'metrics']) assert.throws(() => load({ LATCH_METRICS_PORT: bad }), /LATCH_METRICS_PORT must be an integer/);
  assert.throws(() => load({ PORT: '3000', LATCH_METRICS_PORT: '3000' }), /LATCH_METRICS_PORT must differ from PORT/);
  assert.equal(load({}).serverTiming, false);
  assert.equal(load({ LATCH_SERVER_TIMING: '1' }).serverTiming, true);
});

test('tracing: on only when an OTLP endpoint or the otlp exporter is asked for; the endpoint as the OTLP spec builds it', () => {
  const cases: Array<{ env: Record<string, string>; endpoint: string | null }> = [
    { env: {}, endpoint: null },
    { env: { OTEL_SERVICE_NAME: 'latch' }, endpoint: null },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, endpoint: 'http://collector:4318/v1/traces' },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, endpoint: 'http://collector:4318/v1/traces' },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/base' }, endpoint: 'https://otel.example.com/base/v1/traces' },
    // The signal-specific endpoint is used as it is, and wins.
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/custom' }, endpoint: 'http://b:9999/custom' },
    { env: { OTEL_TRACES_EXPORTER: 'otlp' }, endpoint: 'http://localhost:4318/v1/traces' },
    { env: { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, endpoint: null },
    { env: { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, endpoint: null },
    { env: { OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, endpoint: 'http://collector:4318/v1/traces' },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, endpoint: 'http://collector:4318/v1/traces' },
  ];
  for (const { env, endpoint } of cases) assert.equal(load(env).tracing?.tracesEndpoint ?? null, endpoint, JSON.stringify(env));
});

test('tracing: service name, resource attributes and sampler from their standard variables', () => {
  const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  const plain = load(base).tracing!;
  assert.deepEqual([plain.serviceName, plain.sampler, plain.samplerRatio, plain.resourceAttributes], ['latch', 'parentbased_always_on', 1, {}]);
  const named = load({ ...base, OTEL_RESOURCE_ATTRIBUTES: 'service.name=idp,deployment.environment=prod%20eu' }).tracing!;
  assert.equal(named.serviceName, 'idp');
  assert.deepEqual(named.resourceAttributes, { 'service.name': 'idp', 'deployment.environment': 'prod eu' });
  assert.equal(load({ ...base, OTEL_SERVICE_NAME: 'auth', OTEL_RESOURCE_ATTRIBUTES: 'service.name=idp' }).tracing!.serviceName, 'auth');
  const ratio = load({ ...base, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).tracing!;
  assert.deepEqual([ratio.sampler, ratio.samplerRatio], ['parentbased_traceidratio', 0.25]);
});

test('tracing settings Latch cannot honour stop the start, each named', () => {
  const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL: Latch sends traces over OTLP\/HTTP/],
    [{ ...base, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }, /not grpc/],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER: Latch exports traces with otlp only/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /must be an http:\/\/ or https:\/\/ URL/],
    [{ ...base, OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of/],
    [{ ...base, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ ...base, OTEL_RESOURCE_ATTRIBUTES: 'team=%E0%A4%A' }, /OTEL_RESOURCE_ATTRIBUTES: the value of team/],
  ];
  for (const [env, message] of cases) {
    assert.throws(() => load(env), (error: unknown) => error instanceof ConfigError && message.test(error.message), JSON.stringify(env));
  }
});
