/**
 * Where browser sessions end through a person's action, and who is told.
 *
 * CONTRACT (the seam back-channel logout builds on; OIDC Back-Channel Logout 1.0 §2.5–§2.7):
 *
 * - Every place a browser session ends because a person did something calls endBrowserSessions() below, and
 *   nothing else deletes session rows: the logout endpoint (/oauth2/logout, RP-Initiated Logout 1.0), Latch's
 *   own "Sign out" (/logout), the account page's "Sign out" of one session and "Sign out everywhere", a
 *   password change (ends the other sessions), a password reset by mail link (ends them all), a sign-in as
 *   another person in a browser that was still signed in, and an administrator's disable, sign-out everywhere or
 *   deletion of the account (admin/). Expiry (the cleanup job) is not an ending anyone is
 *   told about: the apps' own sessions expire too.
 * - endBrowserSessions() reads each session's `sid` and the clients it signed in to (browser_session_clients:
 *   every client a code was issued to in that session) BEFORE it deletes the rows, in the same transaction
 *   as the delete, then, after the transaction has committed, calls `SessionEndings.ended` once with
 *   every session that ended (never with an empty list).
 * - `ended` is awaited before the person's response is sent, so a listener may hold the response briefly
 *   (for example to deliver to fast apps before the browser lands on them), and must bound that time itself
 *   (a couple of seconds at most) and hand slower work to the background. It must not throw or reject: the
 *   sessions have ended whatever it does; a failure is caught and logged here, and the person's action
 *   still succeeds.
 * - `clientIds` are the clients that were issued a code in that session, each once, whether or not they
 *   registered a back-channel URI: the listener decides whom to tell. `sid` is the public session id that
 *   id_tokens issued in that session carry (never the cookie value or its hash).
 * - The listener comes from the app's dependencies (AppDeps.sessionEndings); by default nobody is told
 *   (noSessionEndings).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { SessionsToEnd, Storage } from '../storage/storage.js';

/** Why the sessions ended: which action of which person. */
export type SessionEndReason =
  /** An app sent the person to the end_session_endpoint (RP-Initiated Logout 1.0) and they were signed out. */
  | 'rp_initiated_logout'
  /** Latch's own "Sign out" button. */
  | 'signed_out'
  /** The account page's "Sign out" next to one session (this one or another). */
  | 'session_ended_from_account'
  /** The account page's "Sign out everywhere": every session of the person, this one included. */
  | 'signed_out_everywhere'
  /** A password change on the account page: every other session of the person. */
  | 'password_changed'
  /** A password reset by mail link: every session of the person. */
  | 'password_reset'
  /** Someone signed in as another person in a browser that still had a session: that session ends. */
  | 'signed_in_as_another_user'
  /** An administrator disabled the account, signed it out everywhere, or deleted it (the admin console). */
  | 'ended_by_administrator';

/** One ended browser session. */
export interface EndedSession {
  /** The session's public id, as id_tokens issued in it carry it (`sid`). */
  sid: string;
  /** The clients a code was issued to in this session, each once. */
  clientIds: string[];
}

export interface SessionEndEvent {
  userId: number;
  /** Every session that ended, never empty. */
  sessions: EndedSession[];
  reason: SessionEndReason;
}

/** Told after sessions ended (see the contract above). */
export interface SessionEndings {
  ended(event: SessionEndEvent): void | Promise<void>;
}

/** Nobody is told: the default until a listener (back-channel logout) is given in AppDeps.sessionEndings. */
export const noSessionEndings: SessionEndings = { ended() {} };

/** What ending sessions needs, from the app's dependencies. */
export interface SessionEndingDeps {
  storage: Storage;
  sessionEndings: SessionEndings;
}

export interface SessionEnding {
  userId: number;
  /** One session by its hash, or every session of the user but optionally one. */
  which: SessionsToEnd;
  reason: SessionEndReason;
}

/**
 * Ends browser sessions of one user and tells the listener (the contract above). `alsoInTheSameTransaction`
 * writes what must happen with the ending or not at all (a password change and the other sessions' end).
 * Returns what ended. Clearing the cookie of the current request, when its session ended, is the caller's.
 */
export async function endBrowserSessions(
  deps: SessionEndingDeps,
  log: FastifyBaseLogger,
  ending: SessionEnding,
  alsoInTheSameTransaction?: (tx: Storage) => Promise<void>,
): Promise<EndedSession[]> {
  const sessions = await deps.storage.transaction(async (tx) => {
    await alsoInTheSameTransaction?.(tx);
    return tx.browserSessions.end(ending.userId, ending.which);
  });
  if (sessions.length === 0) return sessions;
  log.info({ event: 'sessions_ended', userId: ending.userId, reason: ending.reason, sessions: sessions.length }, 'browser sessions ended');
  try {
    await deps.sessionEndings.ended({ userId: ending.userId, sessions, reason: ending.reason });
  } catch (error) {
    // The sessions have ended whatever the listener did; the person's action succeeds.
    log.error({ err: error, userId: ending.userId, reason: ending.reason }, 'a session-ending listener failed');
  }
  return sessions;
}
