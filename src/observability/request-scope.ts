/**
 * What a request carries while it runs, found again from inside a query or a signature without passing it
 * down every call: its trace span (tracing.ts) and its Server-Timing phases (server-timing.ts).
 *
 * An AsyncLocalStorage, entered only when tracing or Server-Timing is on (observability.ts), and only for the
 * routes that use it: with both off nothing is entered and `getStore()` answers undefined at once.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PhaseTimings } from './server-timing.js';
import type { TraceSpan } from './tracing.js';

export interface RequestScope {
  /** The request's server span, parent of its queries' spans. */
  span?: TraceSpan;
  /** The request's phases for its Server-Timing header. */
  timings?: PhaseTimings;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();
