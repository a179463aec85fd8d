/**
 * Whether an authorization request can use the browser session as it is, or needs the user to sign in (again)
 * first (OIDC Core §3.1.2.1, §3.1.2.3). Pure, so that every rule is testable on its own.
 */
import type { Prompt } from './prompt.js';

export type SignInReason = 'no_session' | 'prompt_login' | 'max_age' | 'other_user';

export interface SessionFacts {
  /** The signed-in user's id and when they last entered their password; null without a session. */
  session: { userId: number; authTime: Date } | null;
  prompt: ReadonlySet<Prompt>;
  maxAgeSeconds: number | null;
  /** The sub of a verified id_token_hint. */
  hintedSubject: string | null;
  /** A sign-in at or after this time satisfies prompt=login and max_age (oidc-request.ts). */
  authenticatedAfter: Date | null;
  now: Date;
}

/** Null when the session is good for this request; otherwise why a sign-in is needed. */
export function signInRequirement(facts: SessionFacts): SignInReason | null {
  const { session } = facts;
  if (!session) return 'no_session';
  // OIDC Core §3.1.2.1 (id_token_hint): the session of another user than the hint names does not answer the request.
  if (facts.hintedSubject !== null && facts.hintedSubject !== String(session.userId)) return 'other_user';
  const freshSignIn = facts.authenticatedAfter !== null && session.authTime.getTime() >= facts.authenticatedAfter.getTime();
  if (freshSignIn) return null;
  if (facts.prompt.has('login') || facts.prompt.has('select_account')) return 'prompt_login';
  // max_age: the session's authentication must be at most that old (max_age=0 is the same as prompt=login).
  if (facts.maxAgeSeconds !== null && facts.now.getTime() - session.authTime.getTime() > facts.maxAgeSeconds * 1000) return 'max_age';
  return null;
}
