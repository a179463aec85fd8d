/**
 * Server-Timing (W3C Server Timing, https://www.w3.org/TR/server-timing/) on successful token and userinfo
 * responses when `LATCH_SERVER_TIMING=1`: `db;dur=0.42, sign;dur=1.10, total;dur=2.31`, in milliseconds.
 *
 * - db: time the request's queries took (observed-executor.ts; parallel queries each count);
 * - sign: time spent signing the id_token (oauth/tokens/id-token.ts);
 * - total: from the request's arrival to its response being ready.
 *
 * Never on a failed request: the phases of a refused client authentication or an unknown token would tell an
 * attacker which step failed, and how long a secret comparison took (a side channel; docs/protocol-decisions.md
 * "Observability").
 */
import { requestScope } from './request-scope.js';

export type TimedPhase = 'db' | 'sign';

export class PhaseTimings {
  db = 0;
  sign = 0;
  /** Which phases happened at all: a phase that never ran is left out of the header rather than shown as 0. */
  private seen = 0;

  add(phase: TimedPhase, milliseconds: number): void {
    this[phase] += milliseconds;
    this.seen |= phase === 'db' ? 1 : 2;
  }

  has(phase: TimedPhase): boolean {
    return (this.seen & (phase === 'db' ? 1 : 2)) !== 0;
  }
}

/** The header's value (RFC 8941-style list of `name;dur=ms`), durations rounded to 0.01 ms. */
export function formatServerTiming(timings: PhaseTimings, totalMilliseconds: number): string {
  const parts: string[] = [];
  if (timings.has('db')) parts.push(`db;dur=${timings.db.toFixed(2)}`);
  if (timings.has('sign')) parts.push(`sign;dur=${timings.sign.toFixed(2)}`);
  parts.push(`total;dur=${totalMilliseconds.toFixed(2)}`);
  return parts.join(', ');
}

/** Where a phase began, or undefined when this request is not timed (the usual case: then this costs a lookup). */
export interface PhaseClock {
  timings: PhaseTimings;
  startedAt: number;
}

export function startPhase(): PhaseClock | undefined {
  const timings = requestScope.getStore()?.timings;
  return timings && { timings, startedAt: performance.now() };
}

export function endPhase(clock: PhaseClock | undefined, phase: TimedPhase): void {
  clock?.timings.add(phase, performance.now() - clock.startedAt);
}
