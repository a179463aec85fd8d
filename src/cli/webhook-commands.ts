/**
 * `latch webhook …`: endpoints that receive chosen audit events, signed (docs/protocol-decisions.md "Webhooks").
 * `create` prints the signing secret once; Latch keeps it only encrypted. `deliveries` is the delivery log.
 */
import { parseArgs } from 'node:util';
import { recordCommandLineEvent } from '../audit/audit-log.js';
import type { Storage, Webhook, WebhookDelivery } from '../storage/storage.js';
import { createWebhook, deleteWebhook, WebhookRegistrationError, type WebhookPolicy } from '../webhooks/webhook-registration.js';
import { printFields, printJson, UsageError } from './output.js';
import type { Terminal } from './terminal.js';

export const WEBHOOK_USAGE = `latch webhook create --url URL --event TYPE [--event TYPE …] [--json]
latch webhook list [--json]
latch webhook deliveries WEBHOOK_ID [--limit N] [--json]
latch webhook delete WEBHOOK_ID`;

const DEFAULT_DELIVERY_LIMIT = 50;
const MAX_DELIVERY_LIMIT = 10_000;

function describeWebhook(webhook: Webhook) {
  return { id: webhook.id, url: webhook.url, events: webhook.eventTypes, created_at: webhook.createdAt.toISOString(), disabled: webhook.disabled };
}

function describeDelivery(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    event_id: delivery.auditEventId,
    event_type: delivery.eventType,
    created_at: delivery.createdAt.toISOString(),
    state: delivery.state,
    attempts: delivery.attempts,
    last_attempt_at: delivery.lastAttemptAt?.toISOString() ?? null,
    last_status: delivery.lastStatus,
    last_error: delivery.lastError,
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
  };
}

function printTable(terminal: Terminal, header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  for (const row of [header, ...rows]) {
    terminal.stdout.write(`${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd()}\n`);
  }
}

const time = (iso: string | null) => (iso === null ? '—' : iso.slice(0, 19).replace('T', ' '));

export async function runWebhookCommand(args: string[], storage: Storage, policy: WebhookPolicy, terminal: Terminal): Promise<void> {
  const [subcommand, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      event: { type: 'string', multiple: true },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const webhookIdArg = () => {
    const id = positionals[0];
    if (!id) throw new UsageError(`latch webhook ${subcommand} needs a WEBHOOK_ID`);
    return id;
  };

  switch (subcommand) {
    case 'create': {
      if (!values.url) throw new UsageError('latch webhook create needs --url URL');
      const eventTypes = (values.event ?? []).flatMap((value) => value.split(/[\s,]+/)).filter((value) => value !== '');
      const { webhook, secret } = await createWebhook(storage, { url: values.url, eventTypes }, policy);
      // Never the URL in the trail: its query may carry the receiver's own token.
      await recordCommandLineEvent(storage, { type: 'webhook.created', details: { webhook_id: webhook.id, events: webhook.eventTypes } });
      if (values.json) {
        printJson(terminal.stdout, { ...describeWebhook(webhook), secret });
        return;
      }
      printFields(terminal.stdout, { id: webhook.id, url: webhook.url, events: webhook.eventTypes, secret });
      terminal.stdout.write('\nThe secret is shown only now: give it to the receiver, which checks each delivery\'s Latch-Webhook-Signature with it.\n');
      return;
    }
    case 'list': {
      const webhooks = (await storage.webhooks.list()).map(describeWebhook);
      if (values.json) printJson(terminal.stdout, webhooks);
      else if (webhooks.length === 0) terminal.stdout.write('No webhooks.\n');
      else printTable(terminal, ['ID', 'CREATED (UTC)', 'URL', 'EVENTS'], webhooks.map((w) => [w.id, time(w.created_at), w.url, w.events.join(' ') + (w.disabled ? ' (disabled)' : '')]));
      return;
    }
    case 'deliveries': {
      const id = webhookIdArg();
      const limit = values.limit === undefined ? DEFAULT_DELIVERY_LIMIT : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DELIVERY_LIMIT) throw new UsageError(`--limit must be an integer from 1 to ${MAX_DELIVERY_LIMIT}`);
      if (!(await storage.webhooks.findById(id))) throw new WebhookRegistrationError(`No webhook has the id ${id} (latch webhook list shows them)`);
      const deliveries = (await storage.webhookDeliveries.listByWebhook(id, limit)).map(describeDelivery);
      if (values.json) printJson(terminal.stdout, deliveries);
      else if (deliveries.length === 0) terminal.stdout.write('No deliveries yet.\n');
      else {
        printTable(
          terminal,
          ['TIME (UTC)', 'EVENT', 'ATTEMPTS', 'STATUS', 'LAST ERROR'],
          deliveries.map((d) => [
            time(d.created_at),
            d.event_type,
            String(d.attempts),
            d.state === 'pending' ? `pending, next ${time(d.next_attempt_at)}` : d.state === 'delivered' ? `delivered (HTTP ${d.last_status})` : 'given up',
            d.last_error ?? '—',
          ]),
        );
      }
      return;
    }
    case 'delete': {
      const id = webhookIdArg();
      await deleteWebhook(storage, id);
      await recordCommandLineEvent(storage, { type: 'webhook.deleted', details: { webhook_id: id } });
      terminal.stdout.write(`Deleted webhook ${id}; its pending deliveries and its delivery log are gone with it.\n`);
      return;
    }
    default:
      throw new UsageError(`Unknown command: latch webhook ${subcommand ?? ''}\n\n${WEBHOOK_USAGE}`);
  }
}
