/**
 * The invalidation signal of a PostgreSQL deployment (invalidation-signal.ts): PostgreSQL's own LISTEN/NOTIFY,
 * so that a revocation, a consent withdrawal, a client deletion or a secret rotation made by one Latch process
 * empties the caches of every other process in about the time a notification takes (well under a millisecond
 * on one network), with no extra round trip on any read.
 *
 * A notification can be late or lost (the listening connection drops, a process dies between its commit and
 * its NOTIFY), so a cached read is never trusted for longer than `maxStalenessMs` after the database was read
 * for it (LATCH_CACHE_MAX_STALENESS_MS, README "Several processes"): the signal's `entryLifetime`, which the
 * caches keep per entry (cached-reads.ts), on a monotonic clock, so that a wall clock set back cannot stretch it.
 * The generation itself changes only when a change is heard. It used to turn over on its own every
 * `maxStalenessMs` as well, which dropped every entry of every process at the same moment of the wall clock: then
 * their next requests all went to the database together, a burst once per bound (not measurable on one process
 * here: BENCHMARKS.md, "Cached entries age one by one"). While the listening
 * connection is down, every call answers a new generation: nothing is served from a cache until it listens
 * again, and its return counts as a change (whatever happened meanwhile was not heard).
 *
 * One channel per schema: deployments (and test schemas) sharing one PostgreSQL database do not disturb each
 * other. A process ignores the echo of its own notifications: it changed its generation when it sent them.
 */
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { InvalidationSignal } from '../invalidation-signal.js';

export interface NotifySignalOptions {
  connectionString: string;
  schema: string | null;
  /** The longest a cached read is used without the database being read again. */
  maxStalenessMs: number;
  /** Called when the listening connection fails or comes back (for the log), never with a secret. */
  onStateChange?: (listening: boolean, error?: Error) => void;
  /** A monotonic clock in milliseconds for the entries' lifetime (default performance.now; tests). */
  clock?: () => number;
}

export interface NotifySignal extends InvalidationSignal {
  /** Whether the listening connection is up (a failed or reconnecting one is not). */
  readonly listening: boolean;
}

const RECONNECT_DELAYS_MS = [100, 500, 1000, 2000, 5000];
const CONNECT_TIMEOUT_MS = 3000;

/** A channel name per schema: an identifier of PostgreSQL's 63 bytes at most, whatever the schema is called. */
export function channelFor(schema: string | null): string {
  return `latch_changes_${createHash('sha256').update(schema ?? 'public').digest('hex').slice(0, 16)}`;
}

/** Opens the listening connection (waits for the first LISTEN, so a fresh process starts trusting its caches at once). */
export async function openNotifySignal(options: NotifySignalOptions): Promise<NotifySignal> {
  const clock = options.clock ?? (() => performance.now());
  const channel = channelFor(options.schema);
  const instance = randomUUID();
  let heard = 0n;
  let unlistenedCalls = 0n;
  let client: pg.Client | null = null;
  let listening = false;
  let closed = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;
  // Notifications on their way: close() lets them go out first (a CLI command's change must reach the servers).
  const sending = new Set<Promise<unknown>>();

  const lost = (error?: Error) => {
    const was = listening;
    listening = false;
    heard += 1n;
    const old = client;
    client = null;
    old?.removeAllListeners('notification');
    old?.end().catch(() => {});
    if (was || error) options.onStateChange?.(false, error);
    if (!closed && retry === undefined) {
      const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!;
      attempt += 1;
      retry = setTimeout(() => {
        retry = undefined;
        void listen().catch(lost);
      }, delay);
      retry.unref();
    }
  };

  const listen = async () => {
    const next = new pg.Client({ connectionString: options.connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, application_name: 'latch-notify' });
    next.on('error', (error) => {
      if (client === next) lost(error);
    });
    next.on('end', () => {
      if (client === next) lost(new Error('the listening connection ended'));
    });
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== instance) heard += 1n;
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
    } catch (error) {
      next.end().catch(() => {});
      throw error;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    listening = true;
    attempt = 0;
    // Whatever changed while nobody listened was not heard.
    heard += 1n;
    options.onStateChange?.(true);
  };

  // A database that is away at the start is retried in the background, like a connection lost later.
  await listen().catch(lost);

  return {
    entryLifetime: { maxAgeMs: options.maxStalenessMs, clock },
    get listening() {
      return listening;
    },
    current() {
      if (!listening) {
        // A value never answered before, nor after: no cached entry can match it.
        unlistenedCalls += 1n;
        // From -2 down: -1 is the caches' own "invalidated" mark (cached-reads.ts), which no signal may answer.
        return -1n - unlistenedCalls;
      }
      return heard;
    },
    changed() {
      heard += 1n;
      if (client && listening) {
        const sent = client.query('SELECT pg_notify($1, $2)', [channel, instance]).catch((error: Error) => lost(error));
        sending.add(sent);
        void sent.finally(() => sending.delete(sent));
      }
    },
    close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      listening = false;
      const old = client;
      client = null;
      return Promise.allSettled([...sending]).then(() => old?.end().catch(() => {}));
    },
  };
}
