/**
 * `latch serve --workers N`: N processes behind one port (node:cluster), on SQLite and on PostgreSQL; the whole
 * flow works through them, and SIGTERM stops them all gracefully.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseWorkerCount } from '../../src/cli/serve.js';
import { TestBrowser } from '../helpers/browser.js';
import { startLatchProcess, runLatch } from '../helpers/latch-process.js';
import { authorize, exchangeCode, pkcePair } from '../helpers/oauth-flow.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason } from '../helpers/postgres.js';

test('--workers takes a count from 1 to 256, or auto/0 for one per core', () => {
  assert.equal(parseWorkerCount(undefined), 1);
  assert.equal(parseWorkerCount('3'), 3);
  assert.ok(parseWorkerCount('auto') >= 1);
  assert.equal(parseWorkerCount('0'), parseWorkerCount('auto'));
  for (const bad of ['-1', '1.5', 'many', '257']) assert.throws(() => parseWorkerCount(bad), /--workers/);
});

for (const database of ['sqlite', 'postgres'] as const) {
  const skip = database === 'postgres' ? ((await postgresUnavailableReason()) ?? false) : false;

  describe(`latch serve --workers 2 on ${database}`, { skip }, () => {
    test('two worker processes serve one port; the flow works through them; SIGTERM stops every one', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'latch-workers-'));
      const schema = database === 'postgres' ? await createTestSchema() : undefined;
      const env: Record<string, string> = schema
        ? { LATCH_DATABASE_URL: POSTGRES_TEST_URL, LATCH_DATABASE_SCHEMA: schema.name, LATCH_SECRET: 'workers-test-secret-0123456789-0123456789' }
        : { LATCH_DATABASE_URL: `sqlite:${join(dataDir, 'latch.db')}` };
      const latch = await startLatchProcess({ env, args: ['--workers', '2'] });
      try {
        // Both workers report listening, from two different processes, on the same port.
        for (let i = 0; i < 200 && (latch.output().match(/listening on/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
        const listening = latch.output().split('\n').filter((line) => line.includes('listening on'));
        const pids = new Set(listening.map((line) => JSON.parse(line).pid));
        assert.equal(pids.size, 2, latch.output());
        assert.equal(new Set(listening.map((line) => /listening on (\S+)\)/.exec(line)?.[1])).size, 1);

        const created = await runLatch(['client', 'create', '--name', 'Workers App', '--redirect-uri', 'http://127.0.0.1:9999/cb', '--json'], { env });
        assert.equal(created.code, 0, created.stderr);
        const client = JSON.parse(created.stdout);
        const user = await runLatch(['user', 'create', '--email', 'w@example.com', '--name', 'W', '--email-verified', '--password-stdin', '--json'], {
          env,
          input: 'correct horse battery staple',
        });
        assert.equal(user.code, 0, user.stderr);

        const { verifier, challenge } = pkcePair();
        const redirect = await authorize(
          new TestBrowser(),
          latch.baseUrl,
          { response_type: 'code', client_id: client.client_id, redirect_uri: 'http://127.0.0.1:9999/cb', scope: 'profile', code_challenge: challenge, code_challenge_method: 'S256' },
          { email: 'w@example.com', password: 'correct horse battery staple' },
        );
        const token = await exchangeCode(
          latch.baseUrl,
          { clientId: client.client_id, clientSecret: client.client_secret, redirectUris: client.redirect_uris },
          { grant_type: 'authorization_code', code: redirect.searchParams.get('code')!, code_verifier: verifier },
        );
        assert.equal(token.status, 200, JSON.stringify(token.body));
        // Keep-alive off so that requests spread over both workers rather than ride one connection.
        for (let i = 0; i < 4; i++) {
          const info = await fetch(`${latch.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}`, connection: 'close' } });
          assert.equal(info.status, 200);
        }

        latch.child.kill('SIGTERM');
        assert.deepEqual(await latch.exited, { code: 0, signal: null });
        assert.match(latch.output(), /all workers have stopped/);
      } finally {
        await latch.stop('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
        await schema?.drop();
      }
    });
  });
}
