import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => server.stop());

test('a sign-in form post over the body limit gets 413 and an error page, not a 5xx', async () => {
  const body = new URLSearchParams({ email: 'a@example.com', password: 'x', return_to: `/${'a'.repeat(70_000)}` }).toString();
  const response = await fetch(`${server.baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  assert.equal(response.status, 413);
  assert.match(response.headers.get('content-type') ?? '', /text\/html/);
  assert.ok(response.headers.get('x-request-id'));
});
