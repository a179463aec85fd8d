/**
 * The audit trail's one way in: `record(request, event)` at each place something security-relevant happened
 * (event-types.ts). The request gives the client's address (as Fastify resolved it: LATCH_TRUST_PROXY), its
 * User-Agent and the request id that its response and log line carry.
 *
 * Never a secret, token, code or password: callers pass ids, names, scopes and counts only, and an event holds
 * nothing a route did not put in it. A sign-in to an unknown account records no identifier at all, not even what
 * was typed (people type passwords into the email field; docs/protocol-decisions.md "Audit events").
 *
 * Writing an event must not slow the hot paths (the code exchange and refresh, thousands a second): `record`
 * only appends to a buffer in this process. The buffer is written as one multi-row insert after FLUSH_DELAY_MS
 * (by database), or at once when it holds FLUSH_AT_EVENTS, and at close. A crash of the process loses at most
 * what the buffer held: the events of the last moments (BENCHMARKS.md, "Audit events: buffered inserts"). While
 * the database is away the buffer keeps up to MAX_BUFFERED_EVENTS and retries; beyond that the oldest are
 * dropped, and the log says how many.
 *
 * Webhooks (docs/protocol-decisions.md "Webhooks"): an event of a type some webhook subscribed to is written
 * with a pending delivery to each such webhook, in the same write (AuditEventRepository.insertMany), so that a
 * delivery is as durable as its event. The subscriptions are read from the database at most once per
 * SUBSCRIPTIONS_MAX_AGE_MS: a webhook created with the command line hears of events from a second later.
 */
import type { NewAuditEvent, Storage, WebhookIdsByEvent, WebhookSubscription } from '../storage/storage.js';
import type { AuditEventType } from './event-types.js';

/** What a request tells about where an event came from (a FastifyRequest is one). */
export interface AuditSource {
  readonly ip: string;
  readonly id: string;
  readonly headers: { readonly 'user-agent'?: string | undefined };
}

/** A detail value: small and plain. Never a secret, token, code or password. */
export type AuditDetail = string | number | boolean | null | readonly string[];

export interface AuditEventInput {
  type: AuditEventType;
  userId?: number | null;
  /** Who did it, when not the user it happened to (an administrator). */
  actorUserId?: number | null;
  clientId?: string | null;
  details?: Record<string, AuditDetail>;
}

/** Where an event recorded outside any request (the command line) says it came from. */
export const COMMAND_LINE = 'cli';

/** User-Agent headers are kept to this many characters, as browser sessions keep theirs. */
const MAX_USER_AGENT_LENGTH = 300;
/** How long an event waits in the buffer before the buffer is written (BENCHMARKS.md, "Audit events: buffered inserts"). */
export const FLUSH_DELAY_MS: Readonly<Record<Storage['dialect'], number>> = {
  // The next turn of the event loop: the events are gone before V8 would promote them to its old generation,
  // and the insert waits (deferrable) for the next group commit of the requests' own writes, never its own.
  sqlite: 0,
  // Every write is a statement and a commit, with a fixed cost on both sides: fewer, larger batches.
  postgres: 50,
};
export const FLUSH_AT_EVENTS = 500;
/** After a failed write, the next attempt waits this long (the database is away; no point in hammering it). */
export const RETRY_INTERVAL_MS = 1000;
export const MAX_BUFFERED_EVENTS = 20_000;
/** How long the webhooks' subscriptions are kept before they are read again (one indexed read of a small table). */
export const SUBSCRIPTIONS_MAX_AGE_MS = 1000;
const WARNING_INTERVAL_MS = 60_000;

export interface AuditLogger {
  warn(fields: object, message: string): void;
}

export interface AuditLogOptions {
  /** Overrides FLUSH_DELAY_MS (0: the next turn of the event loop). */
  flushDelayMs?: number;
  maxBufferedEvents?: number;
  logger?: AuditLogger;
}

function toNewAuditEvent(source: AuditSource | null, event: AuditEventInput, now: Date): NewAuditEvent {
  const userAgent = source?.headers['user-agent'];
  return {
    createdAt: now,
    type: event.type,
    userId: event.userId ?? null,
    actorUserId: event.actorUserId ?? null,
    clientId: event.clientId ?? null,
    ipAddress: source?.ip ?? null,
    userAgent: userAgent ? userAgent.slice(0, MAX_USER_AGENT_LENGTH) : null,
    requestId: source?.id ?? null,
    details: event.details && Object.keys(event.details).length > 0 ? event.details : null,
  };
}

export class AuditLog {
  private buffer: NewAuditEvent[] = [];
  /** Cancels the scheduled write, when one is. */
  private cancelScheduled: (() => void) | undefined;
  /** The write in flight, if any: writes run one after the other, in order. */
  private writing: Promise<void> = Promise.resolve();
  private dropped = 0;
  private lastWarningAt = -Infinity;
  /** After a failed write: writes on the timer wait until then. */
  private retryNotBefore = 0;
  private readonly flushDelayMs: number;
  private readonly maxBufferedEvents: number;
  private logger: AuditLogger | undefined;
  /** The webhooks' subscriptions by event type, and when they were read (performance.now()). */
  private subscriptions: { byType: Map<string, string[]>; readAt: number } | undefined;

  constructor(
    // Without `webhooks` (tests of the buffer alone), no deliveries are queued.
    private readonly storage: Pick<Storage, 'auditEvents' | 'dialect'> & Partial<Pick<Storage, 'webhooks'>>,
    options: AuditLogOptions = {},
  ) {
    this.flushDelayMs = options.flushDelayMs ?? FLUSH_DELAY_MS[storage.dialect];
    this.maxBufferedEvents = options.maxBufferedEvents ?? MAX_BUFFERED_EVENTS;
    this.logger = options.logger;
  }

  setLogger(logger: AuditLogger): void {
    this.logger = logger;
  }

  /** Records an event that happened now, in the request `source` (null: no request, e.g. the command line). */
  record(source: AuditSource | null, event: AuditEventInput): void {
    this.buffer.push(toNewAuditEvent(source, event, new Date()));
    if (this.buffer.length > this.maxBufferedEvents) this.dropOldest();
    // Once, as the buffer reaches the mark (not again for each event while that write runs).
    if (this.buffer.length === FLUSH_AT_EVENTS && Date.now() >= this.retryNotBefore) void this.flush();
    else this.schedule(this.flushDelayMs);
  }

  /** Writes what is buffered now; resolves once it is written (or failed and was kept for a retry). Never rejects. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.writeBuffered());
    return this.writing;
  }

  /** Writes what is left; call before the storage closes. */
  async close(): Promise<void> {
    this.cancelScheduled?.();
    this.cancelScheduled = undefined;
    await this.flush();
    if (this.buffer.length > 0) this.logger?.warn({ events: this.buffer.length }, 'audit events could not be written before closing: they are lost');
  }

  private schedule(delayMs: number): void {
    if (this.cancelScheduled) return;
    const wait = Math.max(delayMs, this.retryNotBefore - Date.now());
    const write = () => {
      this.cancelScheduled = undefined;
      void this.flush();
    };
    // A buffer waiting for its write never keeps the process alive (unref); close() writes it.
    if (wait <= 0) {
      const immediate = setImmediate(write).unref();
      this.cancelScheduled = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(write, wait).unref();
      this.cancelScheduled = () => clearTimeout(timer);
    }
  }

  private async writeBuffered(): Promise<void> {
    const batch = this.buffer;
    if (batch.length === 0) return;
    this.buffer = [];
    try {
      // No await while the subscriptions are fresh: the insert keeps its place in this turn's group commit.
      const webhooks = this.subscriptionsAreFresh() ? this.webhooksFor(batch) : await this.readSubscriptions().then(() => this.webhooksFor(batch));
      await this.storage.auditEvents.insertMany(batch, webhooks);
      this.retryNotBefore = 0;
    } catch (error) {
      // Kept, in order, ahead of what arrived meanwhile, and tried again later.
      this.buffer = batch.concat(this.buffer);
      if (this.buffer.length > this.maxBufferedEvents) this.dropOldest();
      this.warn({ reason: (error as Error).message, buffered: this.buffer.length }, 'audit events could not be written; keeping them to try again');
      this.retryNotBefore = Date.now() + RETRY_INTERVAL_MS;
      this.schedule(RETRY_INTERVAL_MS);
    }
  }

  /** True when there are no webhooks to ask (tests of the buffer alone), or their subscriptions were read lately. */
  private subscriptionsAreFresh(): boolean {
    return !this.storage.webhooks || (this.subscriptions !== undefined && performance.now() - this.subscriptions.readAt < SUBSCRIPTIONS_MAX_AGE_MS);
  }

  private async readSubscriptions(): Promise<void> {
    const readAt = performance.now();
    this.subscriptions = { byType: byEventType(await listSubscriptions(this.storage.webhooks!)), readAt };
  }

  /** The webhooks each event of the batch goes to, by the subscriptions last read; undefined when none goes anywhere. */
  private webhooksFor(batch: readonly NewAuditEvent[]): WebhookIdsByEvent | undefined {
    const byType = this.subscriptions?.byType;
    if (!byType || byType.size === 0) return undefined;
    let found: Map<NewAuditEvent, string[]> | undefined;
    for (const event of batch) {
      const ids = byType.get(event.type);
      if (ids) (found ??= new Map()).set(event, ids);
    }
    return found;
  }

  private dropOldest(): void {
    const excess = this.buffer.length - this.maxBufferedEvents;
    this.buffer.splice(0, excess);
    this.dropped += excess;
    this.warn({ dropped: this.dropped }, 'the audit event buffer is full (the database is away): the oldest events were dropped');
  }

  /** At most one warning a minute: an outage is the operator's to fix, not a line per event. */
  private warn(fields: object, message: string): void {
    const now = Date.now();
    if (now - this.lastWarningAt < WARNING_INTERVAL_MS) return;
    this.lastWarningAt = now;
    this.logger?.warn(fields, message);
  }
}

/**
 * The subscriptions; none while the webhooks table does not exist yet (a process of this version started with
 * `--no-migrate` before the migration ran): no webhook can exist then, and the events themselves must not wait.
 * Any other failure is the database's, and the batch is kept for a retry as usual.
 */
async function listSubscriptions(webhooks: Storage['webhooks']): Promise<WebhookSubscription[]> {
  try {
    return await webhooks.listSubscriptions();
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code === '42P01' || (typeof message === 'string' && /no such table/i.test(message))) return [];
    throw error;
  }
}

function byEventType(subscriptions: readonly WebhookSubscription[]): Map<string, string[]> {
  const byType = new Map<string, string[]>();
  for (const { id, eventTypes } of subscriptions) {
    for (const type of eventTypes) byType.set(type, [...(byType.get(type) ?? []), id]);
  }
  return byType;
}

/**
 * Records one event from the command line, written at once (the process ends right after): no address, user
 * agent or request id, and `via: cli` in its details.
 */
export async function recordCommandLineEvent(storage: Pick<Storage, 'auditEvents'> & Partial<Pick<Storage, 'webhooks'>>, event: AuditEventInput): Promise<void> {
  const stored = toNewAuditEvent(null, { ...event, details: { ...event.details, via: COMMAND_LINE } }, new Date());
  // Webhooks hear of the command line's events too (a serving process delivers them).
  const ids = storage.webhooks ? byEventType(await listSubscriptions(storage.webhooks)).get(stored.type) : undefined;
  await storage.auditEvents.insertMany([stored], ids ? new Map([[stored, ids]]) : undefined);
}
