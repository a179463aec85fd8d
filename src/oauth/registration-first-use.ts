/**
 * A self-registered client's first use (issue 18 item 3; docs/protocol-decisions.md "Dynamic client registration"):
 * its first successful token exchange is written once, and the periodic cleanup removes the self-registered
 * clients that never had one within LATCH_REGISTRATION_UNUSED_SECONDS (server.ts deleteExpiredRecords).
 *
 * Only clients that registered themselves are looked at (one property test per token response for the others).
 * Each process writes a client at most once; the write is awaited (once per client and process), so that a client
 * that got its tokens is marked before it could be removed.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Client, Storage } from '../storage/storage.js';

/** Clients remembered per process before the memory is dropped (then each is written once more, harmlessly). */
const MAX_REMEMBERED = 10_000;

export type FirstUseRecorder = (client: Client, now: Date, log: FastifyBaseLogger) => Promise<void>;

export function createFirstUseRecorder(storage: Storage): FirstUseRecorder {
  const marked = new Set<string>();
  return async (client, now, log) => {
    if (!client.registeredDynamically || marked.has(client.clientId)) return;
    if (marked.size >= MAX_REMEMBERED) marked.clear();
    marked.add(client.clientId);
    try {
      await storage.clients.markUsed(client.clientId, now);
    } catch (error) {
      // The tokens are issued: a failed mark is retried at the next exchange, never the client's error.
      marked.delete(client.clientId);
      log.warn({ err: error, clientId: client.clientId }, 'could not record the first use of a self-registered client');
    }
  };
}
