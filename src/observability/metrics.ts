/**
 * Latch's Prometheus metrics (README "Metrics"; the Grafana dashboard ops/grafana/latch-dashboard.json reads
 * these names). One registry per app, never prom-client's global one, so that several apps in one process
 * (tests) each count their own.
 *
 * Labels are bounded and never secret: a route is its pattern (`/oauth2/register/:clientId`, never the URL with
 * its query), a status a number, a grant type one the token endpoint supports, a sign-in result one of
 * SIGN_IN_RESULTS. No email, user, client id, address, token or secret is ever a label.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { PoolStats } from '../storage/open-storage.js';
import type { QueryOperation } from '../storage/observed-executor.js';
import { CounterFamily, HistogramFamily, type CounterSeries, type HistogramSeries } from './metric-families.js';
import { SIGN_IN_RESULTS, type RequestOutcome } from './request-outcome.js';

/** Request durations, seconds: 250 ms is the usual sign-in latency objective (Keycloak's SLO guide uses it). */
const HTTP_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Query durations, seconds: an embedded SQLite read takes tens of microseconds, a PostgreSQL one a millisecond. */
const QUERY_BUCKETS_SECONDS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** Counts one route's requests with one method: its series per status are resolved at the first of each. */
export type RouteRecorder = (status: number, seconds: number, outcome: RequestOutcome | undefined) => void;

export interface LatchMetricsOptions {
  /** Labels on every metric of this process: `worker` under `latch serve --workers N`. */
  defaultLabels?: Record<string, string>;
}

export class LatchMetrics {
  readonly registry = new Registry();
  private readonly httpDuration = new HistogramFamily(
    'latch_http_request_duration_seconds',
    'Time from the arrival of a request to the end of its response, by method, route pattern and status',
    ['method', 'route', 'status'],
    HTTP_BUCKETS_SECONDS,
  ).registerIn(this.registry);
  private readonly httpRequests = new CounterFamily(
    'latch_http_requests_total',
    'Requests answered, by method, route pattern and status',
    ['method', 'route', 'status'],
  ).registerIn(this.registry);
  private readonly queryDuration = new HistogramFamily(
    'latch_db_query_duration_seconds',
    'Time until the result of a database query was there (group-commit wait included), by read, write or transaction',
    ['operation'],
    QUERY_BUCKETS_SECONDS,
  ).registerIn(this.registry);
  private readonly querySeries: Record<QueryOperation, HistogramSeries>;
  private readonly tokensIssued = new Counter({
    name: 'latch_tokens_issued_total',
    help: 'Successful token responses, by grant type',
    labelNames: ['grant_type'],
    registers: [this.registry],
  });
  private readonly signIns = new Counter({
    name: 'latch_sign_ins_total',
    help: 'Password sign-ins, by result: success, wrong_password, unknown_account, throttled, incomplete',
    labelNames: ['result'],
    registers: [this.registry],
  });
  private readonly throttled = new Counter({
    name: 'latch_throttled_requests_total',
    help: 'Requests refused with 429 Too Many Requests, by route pattern',
    labelNames: ['route'],
    registers: [this.registry],
  });

  constructor(options: LatchMetricsOptions = {}) {
    if (options.defaultLabels) this.registry.setDefaultLabels(options.defaultLabels);
    // process_* and nodejs_* (CPU, memory, handles, GC, and nodejs_eventloop_lag_seconds and its percentiles).
    collectDefaultMetrics({ register: this.registry });
    this.querySeries = {
      read: this.queryDuration.series({ operation: 'read' }),
      write: this.queryDuration.series({ operation: 'write' }),
      transaction: this.queryDuration.series({ operation: 'transaction' }),
    };
    // Every result shown from the start at 0, so that rate() and alerts see the series before the first event.
    for (const result of SIGN_IN_RESULTS) this.signIns.inc({ result }, 0);
  }

  routeRecorder(method: string, route: string): RouteRecorder {
    const byStatus = new Map<number, { duration: HistogramSeries; count: CounterSeries }>();
    return (status, seconds, outcome) => {
      let series = byStatus.get(status);
      if (!series) {
        const labels = { method, route, status: String(status) };
        series = { duration: this.httpDuration.series(labels), count: this.httpRequests.series(labels) };
        byStatus.set(status, series);
      }
      series.duration.observe(seconds);
      series.count.inc();
      if (status === 429) this.throttled.inc({ route });
      if (outcome) this.recordOutcome(outcome, status);
    };
  }

  private recordOutcome(outcome: RequestOutcome, status: number): void {
    if (outcome.kind === 'sign_in') this.signIns.inc({ result: outcome.result });
    // Counted once the response went out as a success: a grant that failed while signing issued nothing usable.
    else if (status === 200) this.tokensIssued.inc({ grant_type: outcome.grantType });
  }

  observeQuery(operation: QueryOperation, seconds: number): void {
    this.querySeries[operation].observe(seconds);
  }

  /** PostgreSQL's pool, read at each scrape. */
  watchPool(stats: () => PoolStats): void {
    const gauge = (name: string, help: string, read: (s: PoolStats) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read(stats()));
        },
      });
    gauge('latch_db_pool_connections', 'Open PostgreSQL connections in the pool of this process, idle or in use', (s) => s.total);
    gauge('latch_db_pool_idle_connections', 'Open PostgreSQL connections waiting for a query', (s) => s.idle);
    gauge('latch_db_pool_waiting_requests', 'Queries waiting for a free connection (the pool is exhausted while above 0)', (s) => s.waiting);
    gauge('latch_db_pool_max_connections', 'The size of the pool, LATCH_DATABASE_POOL_SIZE', (s) => s.max);
  }
}
