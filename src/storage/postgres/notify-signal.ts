/**
 * The invalidation signal of a PostgreSQL deployment (invalidation-signal.ts): PostgreSQL's own LISTEN/NOTIFY,
 * so that a revocation, a consent withdrawal, a client deletion or a secret rotation made by one Latch process
 * (or with psql) empties the caches of every process in about the time a notification takes (well under a
 * millisecond on one network), with no extra round trip on any read.
 *
 * Every committed change to a cached row announces itself from inside its own transaction: triggers of migration
 * 2026_11_27_2300_change_notifications call pg_notify, and PostgreSQL delivers a transaction's notifications at its
 * commit or never. So a process that dies right after its commit cannot leave it unannounced, and cached entries need
 * no lifetime of their own while the channel is known to be alive and the triggers are in place. Every process hears
 * every change, its own writes' too: a write whose outcome was unknown to its process (a connection lost before the
 * answer) may commit after that process forgot its caches, and its notification is what makes it forget again.
 *
 * What remains to bound is a channel that stops delivering without anyone noticing (a dead peer a TCP connection has
 * not seen go, a stalled server). So the listener proves that it still hears, with a heartbeat: a notification with a
 * random payload on a channel only it listens to, every quarter of `maxStalenessMs`. PostgreSQL delivers the
 * notifications of different transactions in the order they committed, so when a heartbeat sent at time S comes
 * back, every change committed before S has been heard. A cached read is trusted only while such an S lies within
 * `maxStalenessMs` (LATCH_CACHE_MAX_STALENESS_MS, README "Several processes"). Past it, every call answers a new
 * generation, so nothing is served from a cache until a heartbeat returns; one that stays away for three bounds (at
 * least 3 s) counts as a lost connection, opened again. The same statement as each heartbeat counts the announcing
 * triggers (change-channel.ts): while any is missing or disabled (a schema not migrated yet, `ALTER TABLE … DISABLE
 * TRIGGER`), a heartbeat proves nothing and nothing is cached.
 *
 * While the listening connection is down, likewise nothing is served from a cache, and its return counts as a
 * change (whatever happened meanwhile was not heard). Time is measured on a monotonic clock, so that a wall clock set
 * back cannot stretch the bound. One channel per schema (change-channel.ts).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { InvalidationSignal } from '../invalidation-signal.js';
import { ANNOUNCING_TRIGGERS, channelFor, enabledTriggersSql } from './change-channel.js';

export interface NotifySignalOptions {
  connectionString: string;
  /**
   * The schema Latch's tables are in (LATCH_DATABASE_SCHEMA), whose channel the triggers use; null: the one the
   * connection's own search_path finds (`current_schema()`: the role's schema, a URL's options), read when it listens.
   */
  schema: string | null;
  /** The longest a committed change may go unheard before nothing cached is trusted any more. */
  maxStalenessMs: number;
  /** How often the listening connection proves that it still hears (default: a quarter of maxStalenessMs). */
  heartbeatMs?: number;
  /** Called when the listening connection fails or comes back (for the log), never with a secret. */
  onStateChange?: (listening: boolean, error?: Error) => void;
  /** Called when the announcing triggers are found missing or disabled (true), and when they are back (false). */
  onTriggersMissing?: (missing: boolean) => void;
  /** A monotonic clock in milliseconds (default performance.now; tests). */
  clock?: () => number;
}

export interface NotifySignal extends InvalidationSignal {
  /** Whether the listening connection is up (a failed or reconnecting one is not). */
  readonly listening: boolean;
}

interface Heartbeat {
  /** Random: nobody else can send its echo early. */
  payload: string;
  sentAt: number;
  echoed: boolean;
  /** What its statement counted, once answered. */
  triggersInPlace?: boolean;
}

const RECONNECT_DELAYS_MS = [100, 500, 1000, 2000, 5000];
const CONNECT_TIMEOUT_MS = 3000;

/** Opens the listening connection (waits for the first LISTEN, so a fresh process starts trusting its caches at once). */
export async function openNotifySignal(options: NotifySignalOptions): Promise<NotifySignal> {
  const clock = options.clock ?? (() => performance.now());
  const heartbeatMs = options.heartbeatMs ?? Math.max(10, Math.floor(options.maxStalenessMs / 4));
  // A heartbeat this late means a connection that no longer works, noticed or not: it is replaced.
  const silenceLimitMs = Math.max(3 * options.maxStalenessMs, 3000);
  let schema = options.schema;
  let channel = schema === null ? null : channelFor(schema);
  // The listener's own: no other process hears its heartbeats, nor it theirs.
  const heartbeatChannel = `latch_beat_${randomUUID().replace(/-/g, '')}`;
  let heard = 0n;
  let untrustedCalls = 0n;
  let client: pg.Client | null = null;
  let listening = false;
  let closed = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;
  // Every change committed before this moment has been heard (or predates the generation): see the heading.
  let provenAt = Number.NEGATIVE_INFINITY;
  let triggersMissing = false;
  // The heartbeat on its way, at most one (a slow server is not sent a queue of them): proven once it has come back
  // and its statement has counted the triggers, in whichever order the two arrive.
  let beat: Heartbeat | null = null;

  const countTriggers = (rows: Array<{ enabled: number }>) => {
    const inPlace = (rows[0]?.enabled ?? 0) >= ANNOUNCING_TRIGGERS;
    if (inPlace === triggersMissing) {
      triggersMissing = !inPlace;
      options.onTriggersMissing?.(triggersMissing);
    }
    return inPlace;
  };

  const settleBeat = () => {
    if (beat === null || !beat.echoed || beat.triggersInPlace === undefined) return;
    if (beat.triggersInPlace) provenAt = beat.sentAt;
    beat = null;
  };

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
        if (beat !== null && message.payload === beat.payload) {
          beat.echoed = true;
          settleBeat();
        }
      } else if (message.channel === channel) {
        heard += 1n;
      }
    });
    let inPlace: boolean;
    try {
      await next.connect();
      if (schema === null) {
        // As Latch's pool sees it: the same URL and role, and no search_path of its own when no schema is set.
        const found = (await next.query<{ schema: string | null }>('select current_schema() as schema')).rows[0]?.schema;
        if (!found) throw new Error('PostgreSQL has no current schema to listen for changes in');
        schema = found;
        channel = channelFor(found);
      }
      await next.query(`LISTEN "${channel}"; LISTEN "${heartbeatChannel}"`);
      inPlace = countTriggers((await next.query<{ enabled: number }>(enabledTriggersSql('$1'), [schema])).rows);
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
    // will be, so the listener is as proven as a heartbeat sent when it began, if the triggers are there to announce.
    heard += 1n;
    beat = null;
    provenAt = inPlace ? startedAt : Number.NEGATIVE_INFINITY;
    options.onStateChange?.(true);
  };

  const sendHeartbeat = () => {
    const on = client;
    if (on === null || !listening) return;
    if (beat !== null) {
      if (clock() - beat.sentAt > silenceLimitMs) lost(new Error(`the listening connection echoed no heartbeat for ${silenceLimitMs} ms`));
      return;
    }
    const sent: Heartbeat = { payload: randomUUID(), sentAt: clock(), echoed: false };
    beat = sent;
    on.query<{ enabled: number }>(`SELECT pg_notify($1, $2), (${enabledTriggersSql('$3')}) AS enabled`, [heartbeatChannel, sent.payload, schema]).then(
      (result) => {
        if (beat !== sent) return;
        sent.triggersInPlace = countTriggers(result.rows);
        settleBeat();
      },
      (error: Error) => {
        if (client === on) lost(error);
      },
    );
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
      // This process forgets at once; every process, this one too, hears the write's own notification (see above).
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
