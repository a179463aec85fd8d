/**
 * The invalidation signal of a PostgreSQL deployment (invalidation-signal.ts): PostgreSQL's own LISTEN/NOTIFY,
 * so that a revocation, a consent withdrawal, a client deletion or a secret rotation made by one Latch process
 * (or behind Latch's back) empties the caches of every other process in about the time a notification takes (well
 * under a millisecond on one network), with no extra round trip on any read.
 *
 * Every committed change to a cached row announces itself from inside its own transaction: triggers of migration
 * 2026_11_27_2300_change_notifications call pg_notify, and PostgreSQL delivers a transaction's notifications at its
 * commit or never. No commit goes unannounced, so cached entries need no lifetime of their own while the channel is
 * known to be alive.
 *
 * What remains to bound is a channel that is not: a listening connection that has stopped receiving (a dead peer a
 * TCP connection has not noticed, a stalled server). So the listener proves that it still hears, with a heartbeat: a
 * notification of its own on a channel only it listens to, every quarter of `maxStalenessMs`. PostgreSQL delivers the
 * notifications of different transactions in the order they committed, so when a heartbeat sent at time S comes
 * back, every change committed before S has been heard. A cached read is trusted only while such an S lies within
 * `maxStalenessMs` (LATCH_CACHE_MAX_STALENESS_MS, README "Several processes"): a change can go unheard no longer than
 * that, whatever the channel does. Past it, every call answers a new generation, so nothing is served from a cache
 * until a heartbeat returns; one that stays away long enough counts as a lost connection, opened again.
 *
 * While the listening connection is down, likewise nothing is served from a cache, and its return counts as a
 * change (whatever happened meanwhile was not heard). Time is measured on a monotonic clock, so that a wall clock set
 * back cannot stretch the bound.
 *
 * One channel per schema: deployments (and test schemas) sharing one PostgreSQL database do not disturb each
 * other. A process ignores the echo of its own writes (their notifications carry its id: postgres-pool.ts): it
 * forgot what they changed when it made them (changed()).
 */
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { InvalidationSignal } from '../invalidation-signal.js';

export interface NotifySignalOptions {
  connectionString: string;
  schema: string | null;
  /** The longest a committed change may go unheard before nothing cached is trusted any more. */
  maxStalenessMs: number;
  /** The id this process's writes carry in their notifications (open-storage.ts); their echo is not a change. */
  instance?: string;
  /** How often the listening connection proves that it still hears (default: a quarter of maxStalenessMs). */
  heartbeatMs?: number;
  /** Called when the listening connection fails or comes back (for the log), never with a secret. */
  onStateChange?: (listening: boolean, error?: Error) => void;
  /** A monotonic clock in milliseconds (default performance.now; tests). */
  clock?: () => number;
}

export interface NotifySignal extends InvalidationSignal {
  /** Whether the listening connection is up (a failed or reconnecting one is not). */
  readonly listening: boolean;
}

const RECONNECT_DELAYS_MS = [100, 500, 1000, 2000, 5000];
const CONNECT_TIMEOUT_MS = 3000;

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A channel name per schema: an identifier of PostgreSQL's 63 bytes at most, whatever the schema is called. The
 * triggers compute the same name in SQL from their table's schema (migration 2026_11_27_2300_change_notifications).
 */
export function channelFor(schema: string | null): string {
  return `latch_changes_${digest(schema ?? 'public').slice(0, 16)}`;
}

/** The channel one listener's heartbeats go round on: its own, so that no process hears another's. */
function heartbeatChannelFor(channel: string, instance: string): string {
  return `${channel}_beat_${digest(instance).slice(0, 16)}`;
}

/** Opens the listening connection (waits for the first LISTEN, so a fresh process starts trusting its caches at once). */
export async function openNotifySignal(options: NotifySignalOptions): Promise<NotifySignal> {
  const clock = options.clock ?? (() => performance.now());
  const heartbeatMs = options.heartbeatMs ?? Math.max(10, Math.floor(options.maxStalenessMs / 4));
  // A heartbeat this late means a connection that no longer works, noticed or not: it is replaced.
  const silenceLimitMs = Math.max(3 * options.maxStalenessMs, 3000);
  const channel = channelFor(options.schema);
  const instance = options.instance ?? randomUUID();
  const heartbeatChannel = heartbeatChannelFor(channel, instance);
  let heard = 0n;
  let untrustedCalls = 0n;
  let client: pg.Client | null = null;
  let listening = false;
  let closed = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;
  // Every change committed before this moment has been heard (or predates the generation): see the heading.
  let provenAt = Number.NEGATIVE_INFINITY;
  // The heartbeat on its way, at most one: a slow server is not sent a queue of them.
  let beat: { seq: number; sentAt: number } | null = null;
  let beats = 0;

  const lost = (error?: Error) => {
    const was = listening;
    listening = false;
    heard += 1n;
    beat = null;
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
    const startedAt = clock();
    const next = new pg.Client({ connectionString: options.connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, application_name: 'latch-notify' });
    next.on('error', (error) => {
      if (client === next) lost(error);
    });
    next.on('end', () => {
      if (client === next) lost(new Error('the listening connection ended'));
    });
    next.on('notification', (message) => {
      if (client !== next) return;
      if (message.channel === heartbeatChannel) {
        if (beat !== null && message.payload === String(beat.seq)) {
          provenAt = beat.sentAt;
          beat = null;
        }
      } else if (message.channel === channel && message.payload !== instance) {
        heard += 1n;
      }
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"; LISTEN "${heartbeatChannel}"`);
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
    // Whatever changed while nobody listened was not heard: a new generation. Everything committed from the LISTEN on
    // will be, so the listener is as proven as a heartbeat sent when it began.
    heard += 1n;
    beat = null;
    provenAt = startedAt;
    options.onStateChange?.(true);
  };

  const sendHeartbeat = () => {
    const on = client;
    if (on === null || !listening) return;
    if (beat !== null) {
      if (clock() - beat.sentAt > silenceLimitMs) lost(new Error(`the listening connection echoed no heartbeat for ${silenceLimitMs} ms`));
      return;
    }
    beats += 1;
    beat = { seq: beats, sentAt: clock() };
    on.query('SELECT pg_notify($1, $2)', [heartbeatChannel, String(beats)]).catch((error: Error) => {
      if (client === on) lost(error);
    });
  };

  // A database that is away at the start is retried in the background, like a connection lost later.
  await listen().catch(lost);
  const heartbeat = setInterval(sendHeartbeat, heartbeatMs);
  heartbeat.unref();

  return {
    get listening() {
      return listening;
    },
    current() {
      if (!listening || clock() - provenAt > options.maxStalenessMs) {
        // A value never answered before, nor after: no cached entry can match it.
        untrustedCalls += 1n;
        // From -2 down: -1 is the caches' own "invalidated" mark (cached-reads.ts), which no signal may answer.
        return -1n - untrustedCalls;
      }
      return heard;
    },
    changed() {
      // This process forgets at once; the others hear the write's own notification (see the heading).
      heard += 1n;
    },
    close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      clearInterval(heartbeat);
      listening = false;
      const old = client;
      client = null;
      return old?.end().catch(() => {});
    },
  };
}
