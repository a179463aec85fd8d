/**
 * The audit trail's table (migration 2026_11_24_0500). Events arrive in batches from audit/audit-log.ts: one
 * multi-row insert per batch, through the executor, so that on the embedded database a batch joins the group
 * commit of the turn it was flushed in instead of committing on its own.
 */
import { sql, type CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { AuditEventRow, Database } from '../database.js';
import type { AuditEventRepository, ListedAuditEvent, NewAuditEvent, WebhookIdsByEvent } from '../storage.js';
import type { QueryExecutor, WritePlan } from '../query-executor.js';
import { fromEpochSeconds, toEpochSeconds } from './columns.js';
import { deleteRows } from './batched-delete.js';

/** Rows per insert statement: 9 values each, far below either database's limit on bound parameters. */
const ROWS_PER_STATEMENT = 500;

type AuditEventValues = ReturnType<typeof toRow>;

function toRow(event: NewAuditEvent) {
  return {
    created_at: toEpochSeconds(event.createdAt),
    type: event.type,
    user_id: event.userId,
    actor_user_id: event.actorUserId,
    client_id: event.clientId,
    ip_address: event.ipAddress,
    user_agent: event.userAgent,
    request_id: event.requestId,
    details: event.details === null ? null : JSON.stringify(event.details),
  };
}

function toListedEvent(row: AuditEventRow & { user_email: string | null }): ListedAuditEvent {
  return {
    id: Number(row.id),
    createdAt: fromEpochSeconds(row.created_at),
    type: row.type,
    userId: row.user_id === null ? null : Number(row.user_id),
    actorUserId: row.actor_user_id === null ? null : Number(row.actor_user_id),
    clientId: row.client_id,
    ipAddress: row.ip_address,
    userAgent: row.user_agent,
    requestId: row.request_id,
    details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
    userEmail: row.user_email,
  };
}

/**
 * The multi-row insert, compiled by Kysely once per database and row count and then only given new values: Kysely
 * builds and compiles a 40-row insert in about 90 µs, more than writing the rows costs (BENCHMARKS.md, "Audit
 * events: buffered inserts"). Its parameters are the rows' values, row by row, in toRow's column order. The
 * counts seen under a steady load fall in a narrow band; past CACHED_COUNTS distinct ones the cache starts over.
 */
const CACHED_COUNTS = 64;
const insertsByAdapter = new WeakMap<object, Map<number, CompiledQuery>>();

export function compileAuditInsert(db: Kysely<Database>, rows: readonly AuditEventValues[]): CompiledQuery {
  const adapter = db.getExecutor().adapter;
  let byCount = insertsByAdapter.get(adapter);
  if (!byCount) insertsByAdapter.set(adapter, (byCount = new Map()));
  const compiled = byCount.get(rows.length);
  if (!compiled) {
    if (byCount.size >= CACHED_COUNTS) byCount.clear();
    const fresh = db.insertInto('audit_events').values(rows as AuditEventValues[]).compile();
    byCount.set(rows.length, fresh);
    return fresh;
  }
  const parameters: unknown[] = [];
  for (const row of rows) {
    parameters.push(row.created_at, row.type, row.user_id, row.actor_user_id, row.client_id, row.ip_address, row.user_agent, row.request_id, row.details);
  }
  return { ...compiled, parameters };
}

/**
 * Events of which some have webhooks to tell, and their deliveries, as one write. The others go in multi-row
 * inserts as usual; each event with webhooks gets its own insert, whose returned id its deliveries name (a
 * multi-row insert returns its ids in no promised order), in the batch's order so that ids keep following
 * time. A delivery goes only to a webhook that still exists and is enabled (the caller's list of subscriptions
 * may be a moment old): the insert selects from webhooks rather than trusting the ids.
 */
function* insertWithDeliveries(db: Kysely<Database>, events: readonly NewAuditEvent[], webhooks: WebhookIdsByEvent): WritePlan<void> {
  let plain: AuditEventValues[] = [];
  for (const event of events) {
    const webhookIds = webhooks.get(event) ?? [];
    if (webhookIds.length === 0) {
      plain.push(toRow(event));
      if (plain.length === ROWS_PER_STATEMENT) {
        yield compileAuditInsert(db, plain);
        plain = [];
      }
      continue;
    }
    if (plain.length > 0) {
      yield compileAuditInsert(db, plain);
      plain = [];
    }
    const inserted = (yield db.insertInto('audit_events').values(toRow(event)).returning('id').compile()) as QueryResult<{ id: number }>;
    const eventId = Number(inserted.rows[0]!.id);
    const createdAt = toEpochSeconds(event.createdAt);
    yield db
      .insertInto('webhook_deliveries')
      .columns(['webhook_id', 'audit_event_id', 'event_type', 'created_at', 'attempts', 'next_attempt_at'])
      .expression(
        db
          .selectFrom('webhooks')
          // Typed casts: PostgreSQL reads an untyped parameter in a select list as text.
          .select((eb) => [
            'id',
            eb.cast<number>(eb.val(eventId), 'bigint').as('audit_event_id'),
            eb.cast<string>(eb.val(event.type), 'text').as('event_type'),
            eb.cast<number>(eb.val(createdAt), 'bigint').as('created_at'),
            eb.cast<number>(eb.val(0), 'integer').as('attempts'),
            eb.cast<number>(eb.val(createdAt), 'bigint').as('next_attempt_at'),
          ])
          .where('id', 'in', [...webhookIds])
          .where('disabled', '=', 0),
      )
      .compile();
  }
  if (plain.length > 0) yield compileAuditInsert(db, plain);
}

/**
 * Events are written when convenient: on the embedded database with the next group commit of the requests'
 * own writes (query-executor.ts WriteOptions), not in a commit of their own.
 */
const DEFERRABLE = { deferrable: true } as const;

export function createAuditEventRepository(db: Kysely<Database>, executor: QueryExecutor): AuditEventRepository {
  return {
    async insertMany(events, webhooks) {
      if (events.length === 0) return;
      if (webhooks !== undefined && events.some((event) => (webhooks.get(event) ?? []).length > 0)) {
        await executor.run(() => insertWithDeliveries(db, events, webhooks), DEFERRABLE);
        return;
      }
      const statements: CompiledQuery[] = [];
      for (let start = 0; start < events.length; start += ROWS_PER_STATEMENT) {
        statements.push(compileAuditInsert(db, events.slice(start, start + ROWS_PER_STATEMENT).map(toRow)));
      }
      if (statements.length === 1) {
        await executor.write(statements[0]!, DEFERRABLE);
        return;
      }
      // Several statements: all or none, so that a batch retried after a failure is never written twice.
      await executor.run(
        function* (): WritePlan<void> {
          for (const statement of statements) yield statement;
        },
        DEFERRABLE,
      );
    },

    async list(filter) {
      let query = db
        .selectFrom('audit_events as e')
        .leftJoin('users as u', 'u.id', 'e.user_id')
        .selectAll('e')
        .select('u.email as user_email');
      if (filter.userId !== undefined) query = query.where('e.user_id', '=', filter.userId);
      if (filter.clientId !== undefined) query = query.where('e.client_id', '=', filter.clientId);
      if (filter.types !== undefined) query = filter.types.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where('e.type', 'in', filter.types);
      // substr, not LIKE (type names hold `_`) and not a range (PostgreSQL's collations may ignore the dots).
      if (filter.typePrefix !== undefined) query = query.where(sql<string>`substr(${sql.ref('e.type')}, 1, ${sql.lit(filter.typePrefix.length)})`, '=', filter.typePrefix);
      if (filter.since !== undefined) query = query.where('e.created_at', '>=', toEpochSeconds(filter.since));
      if (filter.after !== undefined) {
        // The list's own order (created_at, then id, both descending): strictly past the given event.
        const at = toEpochSeconds(filter.after.createdAt);
        const id = filter.after.id;
        query = query.where((eb) => eb.or([eb('e.created_at', '<', at), eb.and([eb('e.created_at', '=', at), eb('e.id', '<', id)])]));
      }
      // Through the executor, to see the events this process has written but not yet committed (DEFERRABLE).
      const { rows } = await executor.read(query.orderBy('e.created_at', 'desc').orderBy('e.id', 'desc').limit(filter.limit).compile(), { seeDeferredWrites: true });
      return rows.map(toListedEvent);
    },

    deleteBefore(before, limit) {
      return deleteRows(db, 'audit_events', 'id', 'created_at', (q) => q.where('created_at', '<', toEpochSeconds(before)), limit);
    },
  };
}
