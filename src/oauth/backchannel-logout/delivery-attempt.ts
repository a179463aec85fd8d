/**
 * One back-channel logout attempt (OIDC Back-Channel Logout 1.0 §2.5, §2.8): a fresh logout token for the
 * claimed delivery, POSTed as the form's only parameter `logout_token` through the SSRF guard
 * (http/outbound-request.ts), then delivered, rescheduled or given up (retry-schedule.ts).
 *
 * Every failed attempt is recorded against the client in its failure log (the developer console's "Recent
 * failed requests"): where it was sent, what came back (status, timeout, refused address) and what happens
 * next. Never the logout token, which is a bearer credential for ending the person's session at the app.
 */
import { TemporarilyUnavailable } from '../../errors.js';
import type { DeliveryLog } from '../../http/delivery-queue.js';
import { OutboundRequestError, postForm } from '../../http/outbound-request.js';
import type { SigningKeyCache } from '../../keys/signing-key-cache.js';
import type { ClaimedBackchannelLogoutDelivery, Client, Storage } from '../../storage/storage.js';
import { createLogoutToken } from '../tokens/logout-token.js';
import { MAX_ATTEMPTS, nextStep, type AttemptResult } from './retry-schedule.js';

/** The endpoint name failures are recorded under (ClientEvent.endpoint). */
export const BACKCHANNEL_LOGOUT_ENDPOINT = 'backchannel_logout';
/** How long to wait before trying again when Latch itself could not sign (keys not loaded yet). */
const SIGNING_UNAVAILABLE_RETRY_SECONDS = 30;

export interface DeliveryAttemptDeps {
  storage: Storage;
  signingKeys: SigningKeyCache;
  issuer: string;
  /** `LATCH_OUTBOUND_ALLOW_PRIVATE`. */
  allowPrivateAddresses: boolean;
  /** Per attempt: resolution, connection and the answer's headers (default 5000). */
  timeoutMs?: number;
  log: DeliveryLog;
}

async function post(uri: string, logoutToken: string, deps: DeliveryAttemptDeps): Promise<{ result: AttemptResult; reason: string }> {
  try {
    const { status } = await postForm(uri, { logout_token: logoutToken }, { allowPrivateAddresses: deps.allowPrivateAddresses, timeoutMs: deps.timeoutMs });
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    return { result: { kind: 'answered', status }, reason: `answered HTTP ${status}${redirect}; a logout token is accepted with 200 or 204 (OIDC Back-Channel Logout 1.0 §2.8)` };
  } catch (error) {
    if (!(error instanceof OutboundRequestError)) throw error;
    const refused = error.failure.kind === 'refused_address' || error.failure.kind === 'invalid_url';
    // Whoever runs Latch for development on one machine is usually the app's developer too: say what allows it.
    const hint = error.failure.kind === 'refused_address' ? ' (for tests and development on one machine, the operator can allow it with LATCH_OUTBOUND_ALLOW_PRIVATE=1)' : '';
    return { result: { kind: refused ? 'refused' : 'unreachable' }, reason: `${error.message}${hint}` };
  }
}

/** The URL as the failure log shows it: a user name or password in it (refused anyway) is not repeated. */
function shownUri(uri: string): string {
  try {
    const url = new URL(uri);
    if (!url.username && !url.password) return uri;
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return uri;
  }
}

async function recordFailure(
  deps: DeliveryAttemptDeps,
  delivery: ClaimedBackchannelLogoutDelivery,
  uri: string,
  outcome: { result: AttemptResult; reason: string },
  attempt: number,
  next: { retryAt: Date; afterSeconds: number } | null,
): Promise<void> {
  const what = next
    ? `Attempt ${attempt} of ${MAX_ATTEMPTS}; the next in ${next.afterSeconds < 120 ? `${next.afterSeconds} s` : `${next.afterSeconds / 60} min`}.`
    : outcome.result.kind === 'refused'
      ? 'Not retried: this URL cannot be used. The app was not told of this logout.'
      : `That was the last of ${MAX_ATTEMPTS} attempts. The app was not told of this logout.`;
  const shown = shownUri(uri);
  try {
    await deps.storage.clientEvents.insert({
      clientId: delivery.clientId,
      createdAt: new Date(),
      endpoint: BACKCHANNEL_LOGOUT_ENDPOINT,
      error: next ? 'backchannel_logout_failed' : 'backchannel_logout_abandoned',
      description: `The logout token POSTed to ${shown} was not accepted: ${outcome.reason}. ${what}`,
      requestId: `backchannel-logout-${delivery.id}-${attempt}`,
      details: {
        backchannelLogout: {
          uri: shown,
          attempt,
          maxAttempts: MAX_ATTEMPTS,
          sid: delivery.sid,
          ...(outcome.result.kind === 'answered' && { status: outcome.result.status }),
          ...(next && { nextAttemptAt: next.retryAt.toISOString() }),
        },
      },
    });
  } catch (error) {
    // Losing a diagnostic record must not lose the delivery itself.
    deps.log.warn({ err: error, clientId: delivery.clientId }, 'could not record a back-channel logout failure');
  }
}

/** Makes one attempt of a claimed delivery and leaves the row delivered (deleted), rescheduled or given up (deleted). */
export async function attemptDelivery(deps: DeliveryAttemptDeps, delivery: ClaimedBackchannelLogoutDelivery, now: Date): Promise<void> {
  const { storage } = deps;
  const client: Client | null = await storage.clients.findById(delivery.clientId);
  const uri = client?.backchannelLogoutUri;
  if (!client || !uri) {
    // The app no longer wants back-channel logouts (or is gone): nothing to deliver.
    await storage.backchannelLogoutDeliveries.delete(delivery.id, delivery.claimToken);
    return;
  }
  let logoutToken: string;
  try {
    logoutToken = await createLogoutToken(deps.signingKeys, { issuer: deps.issuer, clientId: client.clientId, alg: client.idTokenSignedResponseAlg, sub: delivery.sub, sid: delivery.sid, now: new Date() });
  } catch (error) {
    if (!(error instanceof TemporarilyUnavailable)) throw error;
    // Latch's own fault, not the app's: not an attempt, not in the app's failure log.
    deps.log.warn({ err: error, clientId: client.clientId }, 'no signing key for a back-channel logout token yet; trying again shortly');
    await storage.backchannelLogoutDeliveries.reschedule(delivery.id, delivery.claimToken, delivery.attempts, new Date(now.getTime() + SIGNING_UNAVAILABLE_RETRY_SECONDS * 1000));
    return;
  }

  const outcome = await post(uri, logoutToken, deps);
  const attempt = delivery.attempts + 1;
  const step = nextStep(outcome.result, attempt);
  const logFields = { clientId: client.clientId, deliveryId: delivery.id, attempt };
  if (step.step === 'delivered') {
    await storage.backchannelLogoutDeliveries.delete(delivery.id, delivery.claimToken);
    deps.log.info(logFields, 'back-channel logout delivered');
    return;
  }
  if (step.step === 'retry') {
    const retryAt = new Date(now.getTime() + step.afterSeconds * 1000);
    await recordFailure(deps, delivery, uri, outcome, attempt, { retryAt, afterSeconds: step.afterSeconds });
    await storage.backchannelLogoutDeliveries.reschedule(delivery.id, delivery.claimToken, attempt, retryAt);
    deps.log.info({ ...logFields, reason: outcome.reason }, 'back-channel logout not accepted; it will be retried');
    return;
  }
  await recordFailure(deps, delivery, uri, outcome, attempt, null);
  await storage.backchannelLogoutDeliveries.delete(delivery.id, delivery.claimToken);
  deps.log.info({ ...logFields, reason: outcome.reason }, 'back-channel logout given up');
}
