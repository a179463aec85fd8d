/**
 * `latch serve` started while PostgreSQL is away (a machine boot where Latch comes up first, or an outage
 * during a deploy): the process waits for the database with a growing delay, says so in its log, and serves
 * once the database is back, with no restart. Before, the process (or the --workers primary) exited at once,
 * and a supervisor that gives up after N crashes would have turned the outage into a permanent one.
 * PostgreSQL is taken "away" by a TCP proxy of the test's own (test/helpers/tcp-proxy.ts), never by stopping it.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startLatchProcess } from '../helpers/latch-process.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason } from '../helpers/postgres.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const skip = (await postgresUnavailableReason()) ?? false;

describe('PostgreSQL away when Latch starts', { skip }, () => {
  const schemas: { drop(): Promise<void> }[] = [];
  after(async () => {
    for (const schema of schemas) await schema.drop();
  });

  for (const args of [[], ['--workers', '2']]) {
    test(`latch serve ${args.join(' ')} waits for the database and serves once it is back`.replace('  ', ' '), async (t) => {
      const schema = await createTestSchema();
      schemas.push(schema);
      const target = new URL(POSTGRES_TEST_URL);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      await proxy.pause('refuse');
      const viaProxy = new URL(POSTGRES_TEST_URL);
      viaProxy.host = proxy.address;
      const env = { LATCH_DATABASE_URL: viaProxy.toString(), LATCH_DATABASE_SCHEMA: schema.name, LATCH_SECRET: 'database-away-at-start-secret-0123456789' };
      // The database comes back only once Latch has said it is waiting for it, and some time after: a fixed timer
      // from the start raced a slow start on a loaded machine (the process came up after the database did).
      const awayMs = 1500;
      let back: NodeJS.Timeout | undefined;
      let resumedAt: number | undefined;
      const waiting = /the database is unreachable; trying the migrations again in \d+ ms/;
      const startedAt = Date.now();
      const latch = await startLatchProcess({
        env,
        args,
        timeoutMs: 40_000,
        onOutput: (output) => {
          if (back === undefined && waiting.test(output)) {
            back = setTimeout(() => void proxy.resume().then(() => (resumedAt = Date.now())), awayMs);
          }
        },
      });
      try {
        const listeningAfterMs = Date.now() - startedAt;
        assert.ok(resumedAt !== undefined, `listening only once the database is back (listening after ${listeningAfterMs} ms, database still away)`);
        assert.match(latch.output(), waiting);
        const ready = await fetch(`${latch.baseUrl}/readyz`);
        assert.equal(ready.status, 200, await ready.text());
        t.diagnostic(`database away ${awayMs} ms; listening after ${listeningAfterMs} ms`);
      } finally {
        if (back !== undefined) clearTimeout(back);
        const { code } = await latch.stop();
        assert.equal(code, 0);
        await proxy.close();
      }
    });
  }
});
