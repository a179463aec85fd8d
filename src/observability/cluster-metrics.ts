/**
 * Metrics under `latch serve --workers N` (cli/serve.ts): every worker counts in its own registry, labelled
 * `worker="1"` … `worker="N"` (its slot, kept by the worker that replaces it); the primary serves
 * `LATCH_METRICS_PORT` and, at each scrape, asks every worker for its metrics over the cluster's IPC channel and
 * answers with all of them (prom-client's AggregatorRegistry.aggregate, which keeps each worker's series apart
 * because their labels differ). A scraper sees every worker through the one port; `sum without (worker)`
 * gives the whole installation.
 *
 * Unlike prom-client's own clusterMetrics(), which fails the whole scrape when one worker is slow, a worker
 * that has not answered within WORKER_ANSWER_TIMEOUT_MS is left out of that scrape and counted in
 * `latch_cluster_workers_unanswered`; a worker that is still starting is not asked (it says when it is ready).
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { MetricsText } from './metrics-listener.js';

const READY = 'latch:metrics-ready';
const REQUEST = 'latch:metrics-request';
const RESPONSE = 'latch:metrics-response';
export const WORKER_ANSWER_TIMEOUT_MS = 2000;

type Message = { type: typeof READY } | { type: typeof REQUEST; id: number } | { type: typeof RESPONSE; id: number; metrics?: object[]; error?: string };

function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** The IPC channel may be closing (the worker is stopping): a lost answer only leaves the worker out of one scrape. */
function sendToPrimary(message: Message): void {
  if (process.connected) process.send?.(message, undefined, undefined, () => {});
}

/** In a worker: answers the primary's requests with this registry's metrics. Returns the function that stops. */
export function answerPrimaryMetricsRequests(registry: Registry): () => void {
  const onMessage = (message: unknown) => {
    if (!isMessage(message) || message.type !== REQUEST) return;
    const { id } = message;
    registry.getMetricsAsJSON().then(
      (metrics) => sendToPrimary({ type: RESPONSE, id, metrics }),
      (error: unknown) => sendToPrimary({ type: RESPONSE, id, error: (error as Error)?.message ?? String(error) }),
    );
  };
  process.on('message', onMessage);
  sendToPrimary({ type: READY });
  return () => process.off('message', onMessage);
}

/** In the primary: collects every ready worker's metrics, with the primary's own. */
export class ClusterMetrics {
  private readonly ready = new Set<number>();
  private readonly pending = new Map<number, (metrics: object[] | undefined) => void>();
  private nextId = 1;
  private readonly own = new Registry();
  private readonly unanswered: Gauge;

  constructor() {
    this.own.setDefaultLabels({ worker: 'primary' });
    collectDefaultMetrics({ register: this.own });
    const ready = this.ready;
    new Gauge({
      name: 'latch_cluster_workers',
      help: 'Worker processes running and ready to report metrics (latch serve --workers)',
      registers: [this.own],
      collect() {
        this.set(ready.size);
      },
    });
    this.unanswered = new Gauge({
      name: 'latch_cluster_workers_unanswered',
      help: `Ready workers whose metrics did not arrive within ${WORKER_ANSWER_TIMEOUT_MS} ms at the last scrape (left out of it)`,
      registers: [this.own],
    });
    cluster.on('message', this.onMessage);
    cluster.on('exit', this.onExit);
  }

  private readonly onMessage = (worker: Worker, message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === READY) this.ready.add(worker.id);
    if (message.type === RESPONSE) {
      this.pending.get(message.id)?.(message.metrics);
      this.pending.delete(message.id);
    }
  };

  private readonly onExit = (worker: Worker) => {
    this.ready.delete(worker.id);
  };

  private ask(worker: Worker): Promise<object[] | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(undefined);
      }, WORKER_ANSWER_TIMEOUT_MS);
      this.pending.set(id, (metrics) => {
        clearTimeout(timer);
        resolve(metrics);
      });
      worker.send({ type: REQUEST, id } satisfies Message, undefined, (error) => {
        if (error) this.pending.get(id)?.(undefined);
      });
    });
  }

  async collect(): Promise<MetricsText> {
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => !!worker && this.ready.has(worker.id) && worker.isConnected());
    const answers = await Promise.all(workers.map((worker) => this.ask(worker)));
    const received = answers.filter((metrics): metrics is object[] => metrics !== undefined);
    this.unanswered.set(workers.length - received.length);
    const all = AggregatorRegistry.aggregate([...received, (await this.own.getMetricsAsJSON()) as object[]]);
    return { contentType: all.contentType, body: await all.metrics() };
  }

  close(): void {
    cluster.off('message', this.onMessage);
    cluster.off('exit', this.onExit);
  }
}
