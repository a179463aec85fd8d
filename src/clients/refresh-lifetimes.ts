/**
 * Refresh-token lifetimes, per client (issue 14 item 2; docs/protocol-decisions.md "Refresh tokens").
 *
 * The deployment sets the defaults (LATCH_REFRESH_TOKEN_IDLE_SECONDS, LATCH_REFRESH_TOKEN_MAX_SECONDS); a client
 * may be given its own, shorter for a banking app, longer for a TV app that signs in once. What can differ per
 * client is the lifetime; the reuse grace window stays one setting for the deployment, because it is about the
 * network (lost responses, two tabs), not about the app. A token's idle expiry never passes its grant's
 * absolute one, so an idle lifetime longer than the absolute lifetime would never apply: that is refused.
 */
import type { Config } from '../config.js';

/** The same bounds as the environment variables (config.ts). */
export const REFRESH_TOKEN_IDLE_SECONDS_RANGE = { min: 60, max: 5 * 365 * 86400 } as const;
export const REFRESH_TOKEN_MAX_SECONDS_RANGE = { min: 60, max: 10 * 365 * 86400 } as const;

export interface RefreshLifetimeSettings {
  /** Null: the deployment's default. */
  refreshTokenIdleSeconds: number | null;
  refreshTokenMaxSeconds: number | null;
}

export interface RefreshLifetimes {
  idleSeconds: number;
  maxSeconds: number;
}

function rangeProblem(label: string, value: number | null, range: { min: number; max: number }): string | null {
  if (value === null) return null;
  if (!Number.isInteger(value) || value < range.min || value > range.max) return `${label} must be a whole number of seconds from ${range.min} to ${range.max}`;
  return null;
}

/** Every problem with a client's settings, in words for the operator; empty when they hold. */
export function checkRefreshLifetimes(settings: RefreshLifetimeSettings): string[] {
  const problems = [
    rangeProblem('The refresh token idle lifetime', settings.refreshTokenIdleSeconds, REFRESH_TOKEN_IDLE_SECONDS_RANGE),
    rangeProblem('The refresh token absolute lifetime', settings.refreshTokenMaxSeconds, REFRESH_TOKEN_MAX_SECONDS_RANGE),
  ].filter((problem): problem is string => problem !== null);
  const { refreshTokenIdleSeconds: idle, refreshTokenMaxSeconds: max } = settings;
  if (problems.length === 0 && idle !== null && max !== null && idle > max) {
    problems.push(`The refresh token idle lifetime (${idle} s) must not be longer than its absolute lifetime (${max} s): it could never apply`);
  }
  return problems;
}

/** What applies to a client's refresh tokens: its own lifetimes, else the deployment's. */
export function refreshLifetimes(client: RefreshLifetimeSettings, config: Pick<Config, 'refreshTokenIdleSeconds' | 'refreshTokenMaxSeconds'>): RefreshLifetimes {
  return {
    idleSeconds: client.refreshTokenIdleSeconds ?? config.refreshTokenIdleSeconds,
    maxSeconds: client.refreshTokenMaxSeconds ?? config.refreshTokenMaxSeconds,
  };
}
