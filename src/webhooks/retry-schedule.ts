/**
 * What happens after one webhook attempt (docs/protocol-decisions.md "Webhooks"):
 *
 * - Any 2xx is delivered.
 * - A failure the receiver may recover from is retried, after each delay of the schedule in turn
 *   (LATCH_WEBHOOK_RETRY_SECONDS; by default 30 s, 2 min, 10 min, 1 h and 6 h: six attempts over about seven
 *   hours, long enough to outlast a deploy or a night's outage): a 5xx, 408 Request Timeout, 429 Too Many
 *   Requests, no answer in time, a refused or reset connection, a name that does not resolve.
 * - Any other answer (a redirect, never followed; a 4xx: the receiver refused this delivery) and a URL Latch
 *   will not send to (a private address) are given up at once: repeating the attempt cannot change the answer.
 */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [30, 120, 600, 3600, 21600];

export type AttemptResult = { kind: 'answered'; status: number } | { kind: 'unreachable' } | { kind: 'refused' };

export type NextStep = { step: 'delivered' } | { step: 'retry'; afterSeconds: number } | { step: 'give up' };

export function isDelivered(status: number): boolean {
  return status >= 200 && status < 300;
}

function isWorthRetrying(result: AttemptResult): boolean {
  if (result.kind === 'unreachable') return true;
  if (result.kind === 'refused') return false;
  return result.status >= 500 || result.status === 408 || result.status === 429;
}

/** `attemptsMade` counts the attempt just made (1 after the first). */
export function nextStep(result: AttemptResult, attemptsMade: number, retryDelaysSeconds: readonly number[] = DEFAULT_RETRY_DELAYS_SECONDS): NextStep {
  if (result.kind === 'answered' && isDelivered(result.status)) return { step: 'delivered' };
  if (!isWorthRetrying(result)) return { step: 'give up' };
  const delay = retryDelaysSeconds[attemptsMade - 1];
  return delay === undefined ? { step: 'give up' } : { step: 'retry', afterSeconds: delay };
}
