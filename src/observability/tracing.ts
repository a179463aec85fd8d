/**
 * OpenTelemetry tracing, off unless the standard OTEL_* variables ask for it (config.ts `tracing`; README
 * "Tracing"). The OpenTelemetry packages are loaded here, with import(), only then: a Latch without OTEL_* never
 * loads them, and pays nothing for them.
 *
 * Spans: one server span per request, named `METHOD /route/pattern` (never the URL: query strings carry codes,
 * states and login hints), child of the caller's span when the request has a W3C `traceparent` header; and
 * one client span per database query the request makes, with its SQL text (placeholders only: values are
 * bound as parameters, so no secret, hash or email is in it). Nothing is traced outside requests (cleanup,
 * back-channel delivery): no root spans every few seconds.
 *
 * Latch's own tracer, not the global OpenTelemetry API's: nothing process-wide is registered, so several apps
 * in one process (tests) each export their own spans, and an application embedding Latch keeps its own setup.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { TracingSettings } from '../config.js';
import type { QueryOperation } from '../storage/observed-executor.js';
import type { RequestOutcome } from './request-outcome.js';

/** A started span, as the rest of Latch holds it (an OpenTelemetry Span underneath). */
export interface TraceSpan {
  end(): void;
}

export interface RequestEnd {
  status: number;
  requestId: string;
  /** A registered client the request named; never a client_id that matched nothing (it may be a pasted secret). */
  clientId?: string;
  outcome?: RequestOutcome;
}

export interface Tracer {
  /** The server span of a request; `startTimeMs` is when the request arrived (epoch milliseconds). */
  startRequestSpan(method: string, route: string, headers: IncomingHttpHeaders, startTimeMs: number): TraceSpan;
  endRequestSpan(span: TraceSpan, end: RequestEnd): void;
  startQuerySpan(parent: TraceSpan, operation: QueryOperation, sqlText: string | null): TraceSpan;
  endQuerySpan(span: TraceSpan, failed: boolean): void;
  /** Sends the spans still queued, then stops. */
  shutdown(): Promise<void>;
}

export interface TracerOptions {
  /** `sqlite` or `postgresql` (OpenTelemetry's db.system.name). */
  databaseSystem: string;
  /** Told when spans could not be delivered (the collector is away); the caller rate-limits its log line. */
  onExportError(error: Error | undefined): void;
}

export async function openTracer(settings: TracingSettings, options: TracerOptions): Promise<Tracer> {
  const { createOtelTracer } = await import('./otel-tracer.js');
  return createOtelTracer(settings, options);
}
