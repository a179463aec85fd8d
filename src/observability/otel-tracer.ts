/**
 * The Tracer of tracing.ts on the OpenTelemetry SDK: spans batched and sent over OTLP/HTTP (JSON bodies) to the
 * configured endpoint. Only ever loaded through tracing.ts's import(), when OTEL_* turns tracing on.
 *
 * Attribute names follow the OpenTelemetry semantic conventions (HTTP server spans, database client spans).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type TextMapGetter } from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { TracingSettings } from '../config.js';
import type { Tracer, TracerOptions, TraceSpan } from './tracing.js';

/** OTEL_TRACES_SAMPLER as the specification defines its values ("General SDK Configuration"). */
function buildSampler({ sampler, samplerRatio }: TracingSettings): Sampler {
  const root = sampler.endsWith('always_off') ? new AlwaysOffSampler() : sampler.endsWith('traceidratio') ? new TraceIdRatioBasedSampler(samplerRatio) : new AlwaysOnSampler();
  return sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

const headerGetter: TextMapGetter<IncomingHttpHeaders> = {
  get: (headers, key) => headers[key],
  keys: (headers) => Object.keys(headers),
};

/** The exporter, telling the caller about every batch that did not arrive (OpenTelemetry would only tell its diag logger). */
function reportingExporter(inner: SpanExporter, onExportError: TracerOptions['onExportError']): SpanExporter {
  return {
    export(spans, done) {
      inner.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) onExportError(result.error);
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

export function createOtelTracer(settings: TracingSettings, options: TracerOptions): Tracer {
  const exporter = new OTLPTraceExporter({ url: settings.tracesEndpoint });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ ...settings.resourceAttributes, 'service.name': settings.serviceName }),
    sampler: buildSampler(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter: reportingExporter(exporter, options.onExportError) })],
  });
  const tracer = provider.getTracer('latch');
  const propagator = new W3CTraceContextPropagator();

  return {
    startRequestSpan(method, route, headers, startTimeMs) {
      // W3C Trace Context: the caller's trace continues here when it sent a traceparent header.
      const parent = propagator.extract(ROOT_CONTEXT, headers, headerGetter);
      return tracer.startSpan(
        `${method} ${route}`,
        { kind: SpanKind.SERVER, startTime: startTimeMs, attributes: { 'http.request.method': method, 'http.route': route } },
        parent,
      );
    },
    endRequestSpan(traceSpan, end) {
      const span = traceSpan as Span;
      span.setAttribute('http.response.status_code', end.status);
      span.setAttribute('latch.request_id', end.requestId);
      if (end.clientId !== undefined) span.setAttribute('oauth.client_id', end.clientId);
      if (end.outcome?.kind === 'tokens_issued') span.setAttribute('oauth.grant_type', end.outcome.grantType);
      if (end.outcome?.kind === 'sign_in') span.setAttribute('latch.sign_in.result', end.outcome.result);
      // Server spans: a 4xx is the client's doing, not an error of this span (semantic conventions, HTTP spans).
      if (end.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
    startQuerySpan(parent, operation, sqlText) {
      const operationName = sqlText === null ? 'transaction' : (/^\s*(\w+)/.exec(sqlText)?.[1]?.toUpperCase() ?? operation);
      return tracer.startSpan(
        operationName,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'db.system.name': options.databaseSystem,
            'db.operation.name': operationName,
            'latch.db.operation': operation,
            ...(sqlText !== null && { 'db.query.text': sqlText }),
          },
        },
        trace.setSpan(ROOT_CONTEXT, parent as Span),
      );
    },
    endQuerySpan(traceSpan, failed) {
      const span = traceSpan as Span;
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
    shutdown: () => provider.shutdown(),
  };
}
