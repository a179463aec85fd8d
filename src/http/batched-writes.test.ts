import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { atTurnEnd } from '../storage/sqlite/turn-end.js';
import { registerBatchedWrites } from './batched-writes.js';

describe('batched writes', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  const marks: string[] = [];

  before(async () => {
    app = Fastify();
    registerBatchedWrites(app);
    app.get('/now', async (request, reply) => {
      reply.raw.once('finish', () => marks.push('written'));
      setImmediate(() => marks.push('immediate queued by the handler'));
      return { id: (request.query as { id?: string }).id ?? null };
    });
    // Like a request whose write unit is group-committed at the turn's end (storage/sqlite/group-commit.ts).
    app.get('/after-turn-end', async (_request, reply) => {
      reply.raw.once('finish', () => marks.push('written'));
      await new Promise<void>((resolve) =>
        atTurnEnd(() => {
          setImmediate(() => marks.push('immediate of the next turn'));
          resolve();
        }),
      );
      return { committed: true };
    });
    baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => app.close());

  test('a response waits until the callbacks of its turn have run, then is written', async () => {
    marks.length = 0;
    const response = await fetch(`${baseUrl}/now`);
    assert.deepEqual(await response.json(), { id: null });
    assert.deepEqual(marks, ['immediate queued by the handler', 'written']);
  });

  test('a response that becomes ready at the turn end is written at once, not a turn later', async () => {
    marks.length = 0;
    const response = await fetch(`${baseUrl}/after-turn-end`);
    assert.deepEqual(await response.json(), { committed: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(marks, ['written', 'immediate of the next turn']);
  });

  test('many requests at once each get their own answer', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => String(i));
    const answers = await Promise.all(ids.map(async (id) => (await (await fetch(`${baseUrl}/now?id=${id}`)).json()) as { id: string }));
    assert.deepEqual(
      answers.map((answer) => answer.id),
      ids,
    );
  });
});
