/**
 * Webhooks (issue 16 item 2; docs/protocol-decisions.md "Webhooks") over real HTTP: a Latch, a receiver on this
 * machine (LATCH_OUTBOUND_ALLOW_PRIVATE=1), webhooks made with the command line as an operator would.
 *
 * - A sign-in is delivered as signed JSON; the receiver's check (timestamp age, HMAC with the secret the CLI
 *   printed once) passes, and fails for a changed body or an old timestamp.
 * - A receiver that answers 500 is tried again after the configured delay (LATCH_WEBHOOK_RETRY_SECONDS=1,1:
 *   short waits by setting, not by sleeping), with the same delivery id; one that keeps failing is given up
 *   after the bounded number of attempts.
 * - Without LATCH_OUTBOUND_ALLOW_PRIVATE a receiver on a private address is refused, not retried, and the
 *   delivery log says why.
 * - The command line refuses, in words and with exit code 2, what it cannot accept.
 */
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/storage/database.js';
import type { WebhookDelivery } from '../../src/storage/storage.js';
import { RECOMMENDED_TOLERANCE_SECONDS, signWebhookPayload, verifyWebhookSignature } from '../../src/webhooks/webhook-signature.js';
import { runLatchCli } from '../helpers/cli.js';
import { signedInBrowser } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { WebhookReceiver, type ReceivedWebhook } from '../helpers/webhook-receiver.js';

/** The audit log reads the subscriptions at most once a second (audit-log.ts SUBSCRIPTIONS_MAX_AGE_MS). */
const SUBSCRIPTIONS_MAX_AGE_MS = 1000;

function cli(server: TestServer, args: string[], env: Record<string, string> = {}) {
  return runLatchCli(args, {
    LATCH_DATABASE_URL: server.config.databaseUrl,
    LATCH_SECRET: server.config.secret,
    ...(server.config.databaseSchema ? { LATCH_DATABASE_SCHEMA: server.config.databaseSchema } : {}),
    ...env,
  });
}

/** `latch webhook create` as in development on one machine (http to a loopback receiver needs LATCH_DEV_MODE). */
async function createWebhook(server: TestServer, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const created = await cli(server, ['webhook', 'create', '--url', url, ...events.flatMap((event) => ['--event', event]), '--json'], { LATCH_DEV_MODE: '1' });
  assert.equal(created.code, 0, created.stderr);
  const printed = JSON.parse(created.stdout);
  assert.match(printed.id, /^wh_/);
  assert.match(printed.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  // A webhook made in another process is seen by the server's audit log within a second.
  await new Promise((resolve) => setTimeout(resolve, SUBSCRIPTIONS_MAX_AGE_MS + 100));
  return { id: printed.id, secret: printed.secret };
}

async function deliveriesOf(server: TestServer, webhookId: string, until: (deliveries: WebhookDelivery[]) => boolean, timeoutMs = 10_000): Promise<WebhookDelivery[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const deliveries = await server.storage.webhookDeliveries.listByWebhook(webhookId, 100);
    if (until(deliveries)) return deliveries;
    assert.ok(Date.now() < deadline, `the delivery log did not reach the expected state: ${JSON.stringify(deliveries)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function header(request: ReceivedWebhook, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function verify(secret: string, request: ReceivedWebhook, rawBody = request.rawBody, now = new Date()) {
  return verifyWebhookSignature(secret, { timestamp: header(request, 'Latch-Webhook-Timestamp'), signature: header(request, 'Latch-Webhook-Signature') }, rawBody, now);
}

describe('webhooks over HTTP', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  before(async () => {
    server = await startTestServer({ env: { LATCH_OUTBOUND_ALLOW_PRIVATE: '1', LATCH_WEBHOOK_RETRY_SECONDS: '1,1' }, captureLog: true });
  });
  after(async () => server?.stop());

  test('a sign-in is delivered as signed JSON: the receiver verifies it with the secret the CLI printed, and rejects a changed body or an old timestamp', async () => {
    receiver = await WebhookReceiver.start();
    try {
      const { id, secret } = await createWebhook(server, receiver.url, ['user.signin.succeeded']);
      const { user, password } = await server.createUser();
      await signedInBrowser(server, user.email, password);

      const [request] = await receiver.waitFor(1);
      assert.equal(request!.method, 'POST');
      assert.equal(request!.path, '/latch-events');
      assert.equal(header(request!, 'content-type'), 'application/json');
      assert.deepEqual(verify(secret, request!), { valid: true }, 'the signature checks with the printed secret');
      const timestamp = Number(header(request!, 'Latch-Webhook-Timestamp'));
      assert.ok(Math.abs(Date.now() / 1000 - timestamp) < 30, 'the timestamp is the time of the attempt');
      assert.equal(header(request!, 'Latch-Webhook-Signature'), signWebhookPayload(secret, timestamp, request!.rawBody));
      assert.match(header(request!, 'Latch-Webhook-Signature')!, /^v1=[0-9a-f]{64}$/);

      const payload = JSON.parse(request!.rawBody);
      const [stored] = await server.storage.auditEvents.list({ types: ['user.signin.succeeded'], userId: user.id, limit: 1 });
      assert.deepEqual(payload, { id: stored!.id, type: 'user.signin.succeeded', created_at: stored!.createdAt.toISOString(), user_id: user.id, client_id: null, details: {} });

      // What a receiver must refuse: a body that is not the one signed, a signature under another secret, and a
      // delivery replayed later than the tolerance.
      assert.deepEqual(verify(secret, request!, request!.rawBody.replace(String(user.id), String(user.id + 1))), { valid: false, reason: 'mismatch' });
      assert.deepEqual(verify('whsec_another', request!), { valid: false, reason: 'mismatch' });
      assert.deepEqual(verify(secret, request!, request!.rawBody, new Date((timestamp + RECOMMENDED_TOLERANCE_SECONDS + 1) * 1000)), { valid: false, reason: 'too_old' });

      const [delivery] = await deliveriesOf(server, id, (log) => log[0]?.state === 'delivered');
      assert.equal(header(request!, 'Latch-Webhook-Id'), String(delivery!.id));
      const shown = await cli(server, ['webhook', 'deliveries', id, '--json']);
      assert.equal(shown.code, 0, shown.stderr);
      const [logged] = JSON.parse(shown.stdout);
      assert.deepEqual(
        { event_id: logged.event_id, event_type: logged.event_type, state: logged.state, attempts: logged.attempts, last_status: logged.last_status, last_error: logged.last_error, next_attempt_at: logged.next_attempt_at },
        { event_id: stored!.id, event_type: 'user.signin.succeeded', state: 'delivered', attempts: 1, last_status: 200, last_error: null, next_attempt_at: null },
      );
      const table = await cli(server, ['webhook', 'deliveries', id]);
      assert.match(table.stdout, /user\.signin\.succeeded\s+1\s+delivered \(HTTP 200\)/);

      // Nothing secret in the log lines or in the stored webhook.
      const log = JSON.stringify(server.logLines());
      assert.ok(log.includes('webhook delivered'), 'the delivery is logged');
      assert.ok(!log.includes(secret) && !log.includes(receiver.url), 'no secret and no URL in the log');
      const db = (server.storage as unknown as { db: Kysely<Database> }).db;
      const stored_ = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(stored_).includes(secret.slice(6)), 'the secret is stored only encrypted');
      const listed = await cli(server, ['webhook', 'list', '--json']);
      assert.ok(!listed.stdout.includes(secret.slice(6)), 'the secret is shown once, at creation');
      assert.deepEqual(JSON.parse(listed.stdout).find((w: { id: string }) => w.id === id)?.events, ['user.signin.succeeded']);
      assert.equal((await cli(server, ['webhook', 'delete', id])).code, 0);
    } finally {
      await receiver.stop();
    }
  });

  test('a receiver that answers 500 gets the delivery again after the configured wait, with the same id; one that keeps failing is given up after the last attempt', async () => {
    receiver = await WebhookReceiver.start();
    try {
      receiver.statuses.push(500);
      const { id, secret } = await createWebhook(server, receiver.url, ['user.signin.succeeded']);
      const { user, password } = await server.createUser();
      await signedInBrowser(server, user.email, password);
      const [first, second] = await receiver.waitFor(2);
      assert.equal(header(second!, 'Latch-Webhook-Id'), header(first!, 'Latch-Webhook-Id'), 'a retry is the same message');
      assert.equal(second!.rawBody, first!.rawBody);
      // After the one-second wait, not at once. The receiver sees the first attempt when it arrives, which on a busy
      // machine can be a few hundred milliseconds after Latch sent it (and started the wait); an immediate retry
      // arrives within milliseconds.
      assert.ok(second!.receivedAt - first!.receivedAt >= 500, `after the one-second wait (${second!.receivedAt - first!.receivedAt} ms apart)`);
      assert.deepEqual(verify(secret, second!), { valid: true }, 'each attempt is signed with its own timestamp');
      const [retried] = await deliveriesOf(server, id, (log) => log[0]?.state === 'delivered');
      assert.deepEqual({ attempts: retried!.attempts, lastStatus: retried!.lastStatus, lastError: retried!.lastError }, { attempts: 2, lastStatus: 200, lastError: null });

      // Always 503: the first attempt and the two retries of LATCH_WEBHOOK_RETRY_SECONDS=1,1, then given up.
      receiver.thenStatus = 503;
      const before = receiver.received.length;
      await signedInBrowser(server, user.email, password);
      const log = await deliveriesOf(server, id, (deliveries) => deliveries.length === 2 && deliveries[0]!.state === 'given_up');
      assert.deepEqual(
        { attempts: log[0]!.attempts, lastStatus: log[0]!.lastStatus, lastError: log[0]!.lastError, nextAttemptAt: log[0]!.nextAttemptAt },
        { attempts: 3, lastStatus: 503, lastError: 'answered HTTP 503', nextAttemptAt: null },
      );
      assert.equal(receiver.received.length - before, 3, 'three attempts in all');
      const table = await cli(server, ['webhook', 'deliveries', id]);
      assert.match(table.stdout, /user\.signin\.succeeded\s+3\s+given up\s+answered HTTP 503/);
    } finally {
      await receiver.stop();
    }
  });

  test('no answer (connection refused) is retried too, then given up after the last attempt, the log saying why', async () => {
    const gone = await WebhookReceiver.start();
    await gone.stop();
    const { id } = await createWebhook(server, gone.url, ['user.signin.succeeded']);
    const { user, password } = await server.createUser();
    await signedInBrowser(server, user.email, password);
    const [delivery] = await deliveriesOf(server, id, (log) => log[0]?.state === 'given_up');
    assert.deepEqual({ attempts: delivery!.attempts, lastStatus: delivery!.lastStatus }, { attempts: 3, lastStatus: null });
    assert.match(delivery!.lastError!, /^the request to 127\.0\.0\.1:\d+ failed \(ECONNREFUSED\)$/);
    assert.equal((await cli(server, ['webhook', 'delete', id])).code, 0);
  });

  test('two Latch processes on one database: each delivery reaches the receiver exactly once', async () => {
    const second = await startTestServer({
      dataDir: server.dataDir,
      ...(server.config.databaseSchema && { database: 'postgres' as const, postgresSchema: server.config.databaseSchema }),
      env: { LATCH_OUTBOUND_ALLOW_PRIVATE: '1', LATCH_WEBHOOK_RETRY_SECONDS: '1,1', LATCH_SECRET: server.config.secret },
    });
    receiver = await WebhookReceiver.start();
    try {
      const { id } = await createWebhook(server, receiver.url, ['user.signin.succeeded']);
      const { user, password } = await server.createUser();
      const signIns = 8;
      // Sign-ins through both processes: each queues its own events; both work the one queue.
      await Promise.all(Array.from({ length: signIns }, (_, i) => signedInBrowser(i % 2 === 0 ? server : second, user.email, password)));
      await deliveriesOf(server, id, (log) => log.length === signIns && log.every((delivery) => delivery.state === 'delivered'));
      const ids = receiver.received.map((request) => header(request, 'Latch-Webhook-Id'));
      assert.equal(ids.length, signIns, 'one request per delivery');
      assert.equal(new Set(ids).size, signIns, 'no delivery sent twice');
      assert.equal(new Set(receiver.received.map((request) => JSON.parse(request.rawBody).id)).size, signIns, 'each event once');
      assert.equal((await cli(server, ['webhook', 'delete', id])).code, 0);
    } finally {
      await receiver.stop();
      await second.stop({ keepData: true });
    }
  });

  test('the command line refuses, in words and with exit code 2: unknown event types, non-https URLs, http without development mode, unknown ids', async () => {
    const refusals: Array<[string[], Record<string, string>, RegExp]> = [
      [['webhook', 'create', '--url', 'https://hooks.example.com/x', '--event', 'user.signed_in'], {}, /Unknown event type user\.signed_in; the types are user\.created, /],
      [['webhook', 'create', '--url', 'https://hooks.example.com/x'], {}, /Name at least one event type with --event TYPE/],
      [['webhook', 'create', '--url', 'http://hooks.example.com/x', '--event', 'user.created'], { LATCH_DEV_MODE: '1' }, /Webhook URL http:\/\/hooks\.example\.com\/x must start with https:\/\//],
      [['webhook', 'create', '--url', 'http://127.0.0.1:9/x', '--event', 'user.created'], {}, /uses http; use https:\/\/ \(http to localhost, 127\.0\.0\.1 or \[::1\] is allowed only in development mode/],
      [['webhook', 'create', '--url', 'https://user:pass@hooks.example.com/x', '--event', 'user.created'], {}, /must not contain a user name or password/],
      [['webhook', 'create', '--url', 'hooks.example.com', '--event', 'user.created'], {}, /is not an absolute URL/],
      [['webhook', 'create', '--event', 'user.created'], {}, /needs --url URL/],
      [['webhook', 'delete', 'wh_nothing'], {}, /No webhook has the id wh_nothing/],
      [['webhook', 'deliveries', 'wh_nothing'], {}, /No webhook has the id wh_nothing/],
      [['webhook', 'deliveries'], {}, /needs a WEBHOOK_ID/],
      [['webhook', 'frobnicate'], {}, /Unknown command: latch webhook frobnicate/],
    ];
    const before = (await server.storage.webhooks.list()).length;
    for (const [args, env, message] of refusals) {
      const result = await cli(server, args, env);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
      assert.ok(!result.stderr.includes('    at '), 'no stack');
    }
    assert.equal((await server.storage.webhooks.list()).length, before, 'nothing was created');
  });
});

describe('webhooks without LATCH_OUTBOUND_ALLOW_PRIVATE', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  before(async () => {
    server = await startTestServer({ env: { LATCH_WEBHOOK_RETRY_SECONDS: '1,1' } });
    receiver = await WebhookReceiver.start();
  });
  after(async () => {
    await receiver?.stop();
    await server?.stop();
  });

  test('a receiver on a private address is refused, given up at once, and the delivery log says why', async () => {
    const { id } = await createWebhook(server, receiver.url, ['user.signin.succeeded']);
    const { user, password } = await server.createUser();
    await signedInBrowser(server, user.email, password);
    const [delivery] = await deliveriesOf(server, id, (log) => log[0]?.state === 'given_up');
    assert.equal(delivery!.attempts, 1, 'not retried: the answer cannot change');
    assert.equal(delivery!.lastStatus, null);
    assert.match(delivery!.lastError!, /refused to connect to 127\.0\.0\.1: a loopback address is not on the public internet.*LATCH_OUTBOUND_ALLOW_PRIVATE=1/);
    assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
    const shown = await cli(server, ['webhook', 'deliveries', id]);
    assert.match(shown.stdout, /given up\s+refused to connect to 127\.0\.0\.1/);
  });
});
