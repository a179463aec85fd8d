/**
 * Creating and deleting webhooks (`latch webhook …`; docs/protocol-decisions.md "Webhooks"). A webhook names
 * the audit event types it receives (src/audit/event-types.ts, exactly those names) and a URL that passes
 * webhook-url-policy.ts. Its secret is made here, returned once, and stored only encrypted.
 */
import { isAuditEventType, AUDIT_EVENT_TYPE_NAMES } from '../audit/event-types.js';
import type { Storage, Webhook } from '../storage/storage.js';
import { checkWebhookUrl } from './webhook-url-policy.js';
import { generateWebhookId, generateWebhookSecret, webhookSecretEncryption } from './webhook-secret.js';

/** A request an operator can correct: said in words, never with a stack (the CLI exits with 2). */
export class WebhookRegistrationError extends Error {}

export interface WebhookPolicy {
  /** LATCH_SECRET: the secret is encrypted under a key derived from it. */
  latchSecret: string;
  /** LATCH_DEV_MODE: http to a loopback address is allowed. */
  developmentMode: boolean;
}

export async function createWebhook(
  storage: Pick<Storage, 'webhooks'>,
  request: { url: string; eventTypes: readonly string[] },
  policy: WebhookPolicy,
  now = new Date(),
): Promise<{ webhook: Webhook; secret: string }> {
  const problems: string[] = [];
  const urlProblem = checkWebhookUrl(request.url, policy);
  if (urlProblem) problems.push(urlProblem);
  if (request.eventTypes.length === 0) problems.push('Name at least one event type with --event TYPE');
  const unknown = request.eventTypes.filter((type) => !isAuditEventType(type));
  if (unknown.length > 0) problems.push(`Unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the types are ${AUDIT_EVENT_TYPE_NAMES.join(', ')}`);
  if (problems.length > 0) throw new WebhookRegistrationError(problems.join('; '));

  const id = generateWebhookId();
  const secret = generateWebhookSecret();
  const webhook: Webhook = {
    id,
    url: request.url,
    eventTypes: [...new Set(request.eventTypes)],
    secretEncrypted: webhookSecretEncryption(policy.latchSecret).encrypt(secret, id),
    createdAt: now,
    disabled: false,
  };
  await storage.webhooks.insert(webhook);
  return { webhook, secret };
}

export async function deleteWebhook(storage: Pick<Storage, 'webhooks'>, id: string): Promise<void> {
  if (!(await storage.webhooks.delete(id))) throw new WebhookRegistrationError(`No webhook has the id ${id} (latch webhook list shows them)`);
}
