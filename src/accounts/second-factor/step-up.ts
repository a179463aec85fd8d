/**
 * A step-up for the authorization endpoint (session/authentication-methods.ts): what the person has enrolled,
 * and the start of a second step for a session that already has its first. The authorization endpoint gets
 * this from app.ts, so that the protocol does not reach into the account pages.
 */
import type { FastifyReply } from 'fastify';
import type { Config } from '../../config.js';
import type { EnrolledFactors, StepUpKind } from '../../session/authentication-methods.js';
import type { Storage, User } from '../../storage/storage.js';
import { startPendingSignIn } from './pending-sign-in.js';
import { deriveSecondFactorKeys } from './second-factor-keys.js';
import { enrolledFactors } from './second-factors.js';

export interface StepUp {
  enrolledFactors(userId: number): Promise<EnrolledFactors>;
  /** Sets the pending second step for the signed-in `user`; the caller then sends the browser to /login/two-step. */
  begin(reply: FastifyReply, user: User, returnTo: string, from: { amr: string[]; stepUp: StepUpKind }, now: Date): void;
}

export function createStepUp(storage: Storage, config: Config): StepUp {
  const keys = deriveSecondFactorKeys(config.secret);
  return {
    enrolledFactors: (userId) => enrolledFactors(storage, userId),
    begin: (reply, user, returnTo, from, now) => startPendingSignIn(config, keys, reply, user, returnTo, now, from),
  };
}
