/**
 * `latch events`: the audit trail (README "Audit events"), newest first, as a table for people or JSON for
 * scripts. Read-only. Filters combine: `--user` (an email, or a user id) and `--client` name whom it happened
 * to, `--type` one type (`user.signin.failed`) or a family (`user.*`, `token.*`), `--since` a time (ISO 8601) or
 * an age (`30m`, `24h`, `7d`).
 */
import { parseArgs } from 'node:util';
import { auditEventJson, type AuditEventJson } from '../audit/event-json.js';
import { EventFilterError, parseSince as parseFilterSince, parseTypeFilter as parseFilterType } from '../audit/event-filter.js';
import type { AuditEventFilter, Storage } from '../storage/storage.js';
import { printJson, UsageError } from './output.js';
import type { Terminal } from './terminal.js';

export const EVENTS_USAGE = `latch events [--user EMAIL|ID] [--client CLIENT_ID] [--type TYPE|FAMILY.*] [--since ISO|30m|24h|7d] [--limit N] [--json]`;

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 10_000;

/** `--since`: an ISO 8601 time (a date alone is midnight UTC) or an age before `now` (audit/event-filter.ts). */
export function parseSince(text: string, now: Date): Date {
  return asUsageError(() => parseFilterSince(text, now), '--');
}

/** `--type`: one known type, or a family of them (`user.*`, `user.signin.*`). */
export function parseTypeFilter(text: string): Pick<AuditEventFilter, 'types' | 'typePrefix'> {
  return asUsageError(() => parseFilterType(text), '--');
}

function asUsageError<T>(parse: () => T, optionPrefix: string): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof EventFilterError) throw new UsageError(`${optionPrefix}${error.message}`);
    throw error;
  }
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new UsageError(`--limit must be an integer from 1 to ${MAX_LIMIT}`);
  return limit;
}

async function resolveUser(storage: Storage, text: string): Promise<number> {
  if (/^\d{1,15}$/.test(text)) return Number(text);
  const user = await storage.users.findByEmail(text);
  // An event of a sign-in to an unknown account names nobody: there is nothing to find by that email.
  if (!user) throw new UsageError(`No account has the email ${text}. (Failed sign-ins to unknown accounts record no email: list them with --type user.signin.failed.)`);
  return user.id;
}

/** details as `key=value` pairs; values with spaces quoted. */
function describeDetails(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([key, value]) => {
      const text = Array.isArray(value) ? value.join(',') : String(value);
      return `${key}=${/[\s"]/.test(text) || text === '' ? JSON.stringify(text) : text}`;
    })
    .join(' ');
}

function printTable(terminal: Terminal, events: AuditEventJson[]): void {
  const rows = events.map((event) => [
    event.time.slice(0, 19).replace('T', ' '),
    event.type,
    event.user_email ?? (event.user_id === null ? '—' : `#${event.user_id}`),
    event.client_id ?? '—',
    event.ip_address ?? '—',
    describeDetails(event.details),
  ]);
  const header = ['TIME (UTC)', 'TYPE', 'USER', 'CLIENT', 'ADDRESS', 'DETAILS'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  for (const row of [header, ...rows]) {
    terminal.stdout.write(`${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd()}\n`);
  }
}

export async function runEventsCommand(args: string[], storage: Storage, terminal: Terminal): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      user: { type: 'string' },
      client: { type: 'string' },
      type: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 0) throw new UsageError(`latch events takes options only (got "${positionals[0]}")\n\n${EVENTS_USAGE}`);
  const filter: AuditEventFilter = {
    limit: parseLimit(values.limit),
    ...(values.type !== undefined && parseTypeFilter(values.type)),
    ...(values.since !== undefined && { since: parseSince(values.since, new Date()) }),
    ...(values.client !== undefined && { clientId: values.client }),
    ...(values.user !== undefined && { userId: await resolveUser(storage, values.user) }),
  };
  const events = (await storage.auditEvents.list(filter)).map(auditEventJson);
  if (values.json) printJson(terminal.stdout, events);
  else if (events.length === 0) terminal.stdout.write('No events.\n');
  else printTable(terminal, events);
}
