/**
 * Metrics, tracing and Server-Timing, put together for one server process (README "Metrics", "Tracing",
 * "Server-Timing"). Each is off unless configured, and what is off costs nothing: its code is not loaded
 * (prom-client and OpenTelemetry come in through import() only when asked for), no hook is added to the app and
 * the storage's executor is not wrapped.
 *
 * Hooks are per route (Fastify's onRoute), so that each route's label is its pattern, resolved once:
 * - onResponse: the request's count, duration, outcome (request-outcome.ts) and span end;
 * - preValidation (first of the route's): the request scope (request-scope.ts) that queries and signatures
 *   find their request's span and timings in, entered after the body is read (a body's events come from the
 *   socket, outside any scope entered before);
 * - preSerialization, on token and userinfo: the Server-Timing header.
 * One app-level onResponse counts the requests that matched no route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Config } from '../config.js';
import { sqlitePath } from '../storage/database-url.js';
import type { OpenedStorage } from '../storage/open-storage.js';
import type { QueryObserver } from '../storage/observed-executor.js';
import type { ClusterMetrics } from './cluster-metrics.js';
import type { LatchMetrics, RouteRecorder } from './metrics.js';
import { startMetricsListener, type MetricsListener } from './metrics-listener.js';
import { requestOutcome, startNotingOutcomes } from './request-outcome.js';
import { requestScope, type RequestScope } from './request-scope.js';
import { formatServerTiming, PhaseTimings } from './server-timing.js';
import { openTracer, type Tracer, type TraceSpan } from './tracing.js';

/** The routes whose successful responses carry Server-Timing when `LATCH_SERVER_TIMING=1`. */
const SERVER_TIMING_ROUTES = new Set(['/oauth2/token', '/oauth2/userinfo']);
/** The route label of requests that matched no route. */
const UNMATCHED_ROUTE = 'unmatched';
/** At most one log line a minute about spans that could not be sent. */
const EXPORT_ERROR_LOG_INTERVAL_MS = 60_000;

/** What observability logs: pino's and Fastify's loggers both fit. */
export interface ObservabilityLog {
  info(message: string): void;
  warn(details: object, message: string): void;
}

export interface Observability {
  /** For openStorage: set only when something observes queries (storage is not wrapped otherwise). */
  readonly queryObserver: QueryObserver | undefined;
  /** Adds the hooks; called on the new app before any route is registered (app.ts). */
  instrument(app: FastifyInstance): void;
  /** PostgreSQL pool gauges, once storage is open. */
  watchStorage(storage: OpenedStorage): void;
  /** Starts serving metrics (a single process) or answering the primary (a worker); the metrics URL when listening. */
  start(log: ObservabilityLog): Promise<string | undefined>;
  /** Stops the listener and sends the spans still queued. */
  close(): Promise<void>;
}

export interface ObservabilityOptions {
  /**
   * Under `latch serve --workers N`: this worker's slot (1…N), its `worker` label. It serves no metrics port
   * itself; the primary asks it over IPC (cluster-metrics.ts).
   */
  workerSlot?: number;
}

type QueryStart = number | { startedAt: number; scope: RequestScope; span: TraceSpan | undefined };

function arrivalTimeMs(reply: FastifyReply): number {
  return performance.timeOrigin + performance.now() - reply.elapsedTime;
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

export async function openObservability(config: Config, options: ObservabilityOptions = {}): Promise<Observability> {
  let log: ObservabilityLog | undefined;
  let lastExportWarning = 0;
  const metrics = config.metricsPort === null ? undefined : await loadMetrics(options.workerSlot);
  const tracer: Tracer | undefined = config.tracing
    ? await openTracer(config.tracing, {
        databaseSystem: sqlitePath(config.databaseUrl) === null ? 'postgresql' : 'sqlite',
        onExportError(error) {
          if (Date.now() - lastExportWarning < EXPORT_ERROR_LOG_INTERVAL_MS) return;
          lastExportWarning = Date.now();
          log?.warn({ reason: error?.message, endpoint: config.tracing?.tracesEndpoint }, 'spans could not be sent to the OTLP endpoint; they are dropped');
        },
      })
    : undefined;
  const needsScope = tracer !== undefined || config.serverTiming;
  let listener: MetricsListener | undefined;
  let stopAnswering: (() => void) | undefined;

  const queryObserver: QueryObserver<QueryStart> | undefined =
    metrics || needsScope
      ? {
          start(operation, query) {
            const startedAt = performance.now();
            const scope = needsScope ? requestScope.getStore() : undefined;
            if (scope === undefined) return startedAt;
            const span = tracer && scope.span ? tracer.startQuerySpan(scope.span, operation, query?.sql ?? null) : undefined;
            return { startedAt, scope, span };
          },
          end(operation, started, failed) {
            const milliseconds = performance.now() - (typeof started === 'number' ? started : started.startedAt);
            metrics?.observeQuery(operation, milliseconds / 1000);
            if (typeof started === 'number') return;
            started.scope.timings?.add('db', milliseconds);
            if (started.span) tracer!.endQuerySpan(started.span, failed);
          },
        }
      : undefined;

  function instrument(app: FastifyInstance): void {
    if (!metrics && !needsScope) return;
    if (metrics || tracer) startNotingOutcomes();
    const scopes = new WeakMap<FastifyRequest, RequestScope>();

    const finish = (request: FastifyRequest, reply: FastifyReply, route: string, recorders: Map<string, RouteRecorder>) => {
      const outcome = requestOutcome(request);
      if (metrics) {
        let record = recorders.get(request.method);
        if (!record) recorders.set(request.method, (record = metrics.routeRecorder(request.method, route)));
        record(reply.statusCode, reply.elapsedTime / 1000, outcome);
      }
      if (tracer) {
        // A request refused before its scope was entered (a body that could not be read) still gets its span.
        const span = scopes.get(request)?.span ?? tracer.startRequestSpan(request.method, route, request.headers, arrivalTimeMs(reply));
        tracer.endRequestSpan(span, { status: reply.statusCode, requestId: request.id, clientId: request.latchClient?.clientId, outcome });
      }
    };

    app.addHook('onRoute', (route: RouteOptions) => {
      const url = route.url;
      const timed = config.serverTiming && SERVER_TIMING_ROUTES.has(url);
      if (tracer || timed) {
        const enterScope = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
          const scope: RequestScope = {};
          if (tracer) scope.span = tracer.startRequestSpan(request.method, url, request.headers, arrivalTimeMs(reply));
          if (timed) scope.timings = new PhaseTimings();
          scopes.set(request, scope);
          requestScope.run(scope, done);
        };
        route.preValidation = [enterScope, ...asArray(route.preValidation)];
      }
      if (timed) {
        const addServerTiming = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
          const timings = scopes.get(request)?.timings;
          // Successes only: a failure's phases would be a side channel (server-timing.ts).
          if (timings && reply.statusCode >= 200 && reply.statusCode < 300) reply.header('server-timing', formatServerTiming(timings, reply.elapsedTime));
          done(null, payload);
        };
        route.preSerialization = [...asArray(route.preSerialization), addServerTiming];
      }
      if (metrics || tracer) {
        const recorders = new Map<string, RouteRecorder>();
        const onResponse = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
          finish(request, reply, url, recorders);
          done();
        };
        route.onResponse = [...asArray(route.onResponse), onResponse];
      }
    });
    if (metrics || tracer) {
      const unmatched = new Map<string, RouteRecorder>();
      app.addHook('onResponse', (request, reply, done) => {
        if (request.is404) finish(request, reply, UNMATCHED_ROUTE, unmatched);
        done();
      });
    }
  }

  return {
    queryObserver: queryObserver as QueryObserver | undefined,
    instrument,
    watchStorage(storage) {
      if (metrics && storage.poolStats) metrics.watchPool(storage.poolStats);
    },
    async start(startLog) {
      log = startLog;
      if (!metrics) return undefined;
      if (options.workerSlot !== undefined) {
        const { answerPrimaryMetricsRequests } = await import('./cluster-metrics.js');
        stopAnswering = answerPrimaryMetricsRequests(metrics.registry);
        return undefined;
      }
      listener = await startMetricsListener({
        host: config.metricsHost,
        port: config.metricsPort!,
        collect: async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }),
        onError: (error) => log?.warn({ reason: (error as Error)?.message }, 'collecting the metrics failed'),
      });
      return listener.url;
    },
    async close() {
      stopAnswering?.();
      await listener?.close();
      await tracer?.shutdown().catch(() => {});
    },
  };
}

async function loadMetrics(workerSlot: number | undefined): Promise<LatchMetrics> {
  const { LatchMetrics } = await import('./metrics.js');
  return new LatchMetrics(workerSlot === undefined ? {} : { defaultLabels: { worker: String(workerSlot) } });
}

/**
 * The primary of `latch serve --workers N`: serves `LATCH_METRICS_PORT` with every worker's metrics
 * (cluster-metrics.ts). Undefined when metrics are off.
 */
export async function serveClusterMetrics(config: Config, log: ObservabilityLog): Promise<MetricsListener | undefined> {
  if (config.metricsPort === null) return undefined;
  const { ClusterMetrics } = await import('./cluster-metrics.js');
  const cluster: ClusterMetrics = new ClusterMetrics();
  try {
    const listener = await startMetricsListener({
      host: config.metricsHost,
      port: config.metricsPort,
      collect: () => cluster.collect(),
      onError: (error) => log.warn({ reason: (error as Error)?.message }, "collecting the workers' metrics failed"),
    });
    log.info(`serving every worker's metrics at ${listener.url}`);
    return {
      url: listener.url,
      async close() {
        cluster.close();
        await listener.close();
      },
    };
  } catch (error) {
    cluster.close();
    throw error;
  }
}
