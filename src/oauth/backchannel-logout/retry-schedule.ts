/**
 * What happens after one back-channel logout attempt (OIDC Back-Channel Logout 1.0 §2.8;
 * docs/protocol-decisions.md "Back-channel logout"):
 *
 * - 200 or 204 is delivered (§2.8: "If the logout succeeded, the RP MUST respond with HTTP 200 OK"; 204 is
 *   accepted too, as the OpenID conformance suite and node-oidc-provider do). Any other status, a redirect
 *   included (never followed), is a failure.
 * - A failure the app may recover from (an error status, a timeout, a refused or reset connection, a name that
 *   does not resolve) is retried: three more attempts, 30 s, 2 min and 10 min after the one before, each
 *   with a fresh logout token, so that an app that was restarting or briefly down still hears of the logout.
 * - A URL Latch will not send to (a private address, not http(s)) is given up at once: repeating the
 *   attempt cannot change the answer; the developer sees why in the failure log.
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = [30, 120, 600];
export const MAX_ATTEMPTS = 1 + RETRY_DELAYS_SECONDS.length;

export type AttemptResult =
  | { kind: 'answered'; status: number }
  | { kind: 'unreachable' }
  | { kind: 'refused' };

export type NextStep = { step: 'delivered' } | { step: 'retry'; afterSeconds: number } | { step: 'give up' };

export function isDelivered(status: number): boolean {
  return status === 200 || status === 204;
}

/** `attemptsMade` counts the attempt just made (1 after the first). */
export function nextStep(result: AttemptResult, attemptsMade: number): NextStep {
  if (result.kind === 'answered' && isDelivered(result.status)) return { step: 'delivered' };
  if (result.kind === 'refused') return { step: 'give up' };
  const delay = RETRY_DELAYS_SECONDS[attemptsMade - 1];
  return delay === undefined ? { step: 'give up' } : { step: 'retry', afterSeconds: delay };
}
