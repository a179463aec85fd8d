/**
 * The metrics listener: `GET /metrics` in Prometheus's text format on a port of its own (`LATCH_METRICS_PORT`,
 * bound to `LATCH_METRICS_HOST`, default 127.0.0.1), never on the port that serves the public. A bare
 * node:http server: none of the app's hooks, pages or limits apply here, and the app's routes never see it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MetricsText {
  contentType: string;
  body: string;
}

export interface MetricsListener {
  /** http://HOST:PORT/metrics as bound (the real port when 0 was asked for). */
  url: string;
  close(): Promise<void>;
}

export interface MetricsListenerOptions {
  host: string;
  port: number;
  collect(): Promise<MetricsText>;
  /** Told when collecting failed (the scrape is answered 500). */
  onError(error: unknown): void;
}

function answer(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
  response.end(body);
}

export async function startMetricsListener(options: MetricsListenerOptions): Promise<MetricsListener> {
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') return answer(response, 404, 'Not found: metrics are at GET /metrics\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(response, 405, 'Only GET and HEAD\n', { allow: 'GET, HEAD' });
    try {
      const { contentType, body } = await options.collect();
      response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    } catch (error) {
      options.onError(error);
      answer(response, 500, 'Collecting the metrics failed; see the log\n');
    }
  };
  const server = createServer((request, response) => void handle(request, response));
  // Scrapers keep their connection; idle ones must not hold the process open at shutdown.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
