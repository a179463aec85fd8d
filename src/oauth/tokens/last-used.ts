/**
 * "Last used" of a connected app (the account page's connected apps; issue 14 item 6): the time an app last
 * received tokens under a person's consent, a code exchange or a refresh, kept to the minute.
 *
 * Written beside the token response, never in its way: the write is not awaited by the response (a failure is
 * logged), and each process writes a given user and app at most once a minute, so a busy app costs one small
 * update a minute instead of one per exchange. The repository applies the same minute on its side, so several
 * processes write at most once a minute each.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Storage } from '../../storage/storage.js';

const RESOLUTION_MS = 60_000;
/** Remembered pairs per process before the memory is dropped (then each writes once more, harmlessly). */
const MAX_REMEMBERED = 10_000;

export interface LastUsedRecorder {
  record(userId: number, clientId: string, now: Date, log: FastifyBaseLogger): void;
}

export function createLastUsedRecorder(storage: Storage): LastUsedRecorder {
  const written = new Map<string, number>();
  return {
    record(userId, clientId, now, log) {
      const key = `${userId} ${clientId}`;
      const last = written.get(key);
      if (last !== undefined && now.getTime() - last < RESOLUTION_MS) return;
      if (written.size >= MAX_REMEMBERED) written.clear();
      written.set(key, now.getTime());
      storage.consents.markUsed(userId, clientId, now).catch((error: unknown) => {
        written.delete(key);
        log.warn({ err: error, clientId }, 'could not record when the app last used its access');
      });
    },
  };
}
