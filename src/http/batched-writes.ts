/**
 * Responses are written in batches, once per turn of the event loop: a response that is ready waits until the
 * I/O callbacks of the current turn have run (storage/sqlite/turn-end.ts), and then every response that became
 * ready in that turn is written, one after the other. A response that becomes ready at the turn's end (after
 * a group commit) is written at once: it is already in a batch.
 *
 * Why: each write to a client's socket may have to wake the client's process, and when that process sleeps on
 * another CPU the wake-up is an interrupt between CPUs, which on a virtual machine costs more than answering a
 * userinfo request. Written back to back, the responses of one turn wake a client once, and the client sends
 * its next requests together, so the next turn has more to do per wake-up as well (BENCHMARKS.md, "Responses
 * written once per event-loop turn"). Redis writes its replies the same way, just before its event loop sleeps.
 *
 * The cost is latency within a turn: a response waits for the other requests that arrived with it, never for
 * anything that arrives later, and never for a timer. Order on a connection is unchanged (Node queues the
 * responses of pipelined requests in order), and nothing about what is written changes.
 *
 * One rule follows for route code, which is Fastify's own: an async handler or hook that calls reply.send()
 * (or redirect, or a page renderer) must `return reply`. Fastify otherwise takes the handler's `undefined` for
 * "nothing sent yet" while the response waits here, and sends a second, empty one. Such a second send is
 * dropped here and logged as the bug it is (`countDoubleSends` lets the tests check that none happened).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { atTurnEnd, isAtTurnEnd } from '../storage/sqlite/turn-end.js';

type OnSendDone = (error: Error | null, payload?: unknown) => void;

const kWriteQueued = Symbol('latch.writeQueued');
let doubleSends = 0;

/** How many second sends of one reply were dropped in this process (a route that forgot `return reply`). */
export function countDoubleSends(): number {
  return doubleSends;
}

export function registerBatchedWrites(app: FastifyInstance): void {
  // Flat pairs (done, payload): no closure per response.
  let pending: unknown[] = [];

  const writePending = () => {
    const batch = pending;
    pending = [];
    for (let i = 0; i < batch.length; i += 2) {
      try {
        (batch[i] as OnSendDone)(null, batch[i + 1]);
      } catch (error) {
        // One failed write must not keep the rest of the batch from being written.
        app.log.error({ err: error }, 'writing a response failed');
      }
    }
  };

  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone) => {
    const replyState = reply as FastifyReply & { [kWriteQueued]?: true };
    if (replyState[kWriteQueued]) {
      doubleSends += 1;
      request.log.error(`a second response to ${request.method} ${request.routeOptions.url ?? 'an unknown route'} was dropped: its handler must return reply`);
      return; // the first one is written; this send chain ends here
    }
    if (isAtTurnEnd()) return done(null, payload);
    replyState[kWriteQueued] = true;
    if (pending.length === 0) atTurnEnd(writePending);
    pending.push(done, payload);
  });
}
