/**
 * What a request achieved, noted by its route for metrics and traces: which grant issued tokens, how a sign-in
 * ended. Read once the response is sent (observability.ts), so that only what really reached the client counts.
 *
 * A WeakMap (requests that note nothing carry nothing extra), and written only while some app in this process
 * observes (metrics or tracing on): otherwise noting costs a flag check.
 *
 * Never an email, a user id, a secret or a token: a result from a fixed list and the grant type, which the
 * token endpoint has already checked against the grants it supports.
 */
import type { FastifyRequest } from 'fastify';

/** How a password sign-in ended (POST /login). */
export type SignInResult = 'success' | 'wrong_password' | 'unknown_account' | 'throttled' | 'incomplete';
export const SIGN_IN_RESULTS: readonly SignInResult[] = ['success', 'wrong_password', 'unknown_account', 'throttled', 'incomplete'];

export type RequestOutcome = { kind: 'tokens_issued'; grantType: string } | { kind: 'sign_in'; result: SignInResult };

const outcomes = new WeakMap<FastifyRequest, RequestOutcome>();
let noting = false;

/** Called by observability.ts when metrics or tracing are on in this process. */
export function startNotingOutcomes(): void {
  noting = true;
}

/** The token endpoint issued tokens through this grant (counted only if the 200 response is sent). */
export function noteTokensIssued(request: FastifyRequest, grantType: string): void {
  if (noting) outcomes.set(request, { kind: 'tokens_issued', grantType });
}

export function noteSignIn(request: FastifyRequest, result: SignInResult): void {
  if (noting) outcomes.set(request, { kind: 'sign_in', result });
}

export function requestOutcome(request: FastifyRequest): RequestOutcome | undefined {
  return noting ? outcomes.get(request) : undefined;
}
