/**
 * A webhook receiver for tests: a local HTTP server that keeps every request as it arrived (raw body, headers)
 * and answers with the statuses it is told to, in order (200 once they run out).
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received: what the signature covers. */
  rawBody: string;
  /** When the request's headers arrived (not its end, which a busy machine can delay further). */
  receivedAt: number;
}

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Statuses to answer with, in order; then `thenStatus`. */
  readonly statuses: number[] = [];
  thenStatus = 200;
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((request, response) => {
      const receivedAt = Date.now();
      let rawBody = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (rawBody += chunk));
      request.on('end', () => {
        receiver!.received.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, rawBody, receivedAt });
        response.writeHead(receiver!.statuses.shift() ?? receiver!.thenStatus).end();
        for (const wake of receiver!.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/latch-events`);
    return receiver;
  }

  /** Waits until `count` requests have arrived in all, or fails after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      assert.ok(left > 0, `expected ${count} webhook request(s) within ${timeoutMs} ms, got ${this.received.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
