/**
 * The consent page of an app described by a Client ID Metadata Document (issue 18 item 4), in Chromium with axe-core:
 * marked as unverified with the host that serves its document, its privacy policy and terms linked, and no
 * accessibility violation of impact serious or critical.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { checkAccessibility } from '../helpers/accessibility.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/chromium.js';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const REDIRECT_URI = 'http://127.0.0.1:33418/callback';

describe('consent page of an app from a client metadata document (Chromium, axe-core)', { skip: skipWithoutChromium }, () => {
  let documents: Server;
  let clientId: string;
  let latch: TestServer;
  let browser: Browser;
  let user: { email: string; password: string };

  before(async () => {
    documents = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          client_id: clientId,
          client_name: 'Orbit Agent',
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'none',
          policy_uri: 'https://orbit.example.com/privacy',
          tos_uri: 'https://orbit.example.com/terms',
        }),
      );
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    clientId = `http://127.0.0.1:${(documents.address() as AddressInfo).port}/orbit.json`;
    latch = await startTestServer({ env: { LATCH_CIMD: '1', LATCH_DEV_MODE: '1' } });
    const created = await latch.createUser();
    user = { email: created.user.email, password: created.password };
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await latch?.stop();
    documents.closeAllConnections();
    await new Promise((resolve) => documents.close(resolve));
  });

  test('marked as unverified with the document host, policy and terms linked, no serious accessibility violation', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(
      authorizeUrl(latch.baseUrl, { client_id: clientId, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'openid profile', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }),
    );
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const note = await page.getByRole('note').innerText();
    assert.match(note, new RegExp(`Unverified app\\. Orbit Agent is described by ${new URL(clientId).host.replace(/\./g, '\\.')}`));
    assert.equal(await page.getByRole('link', { name: 'privacy policy' }).getAttribute('href'), 'https://orbit.example.com/privacy');
    assert.equal(await page.getByRole('link', { name: 'terms of service' }).getAttribute('href'), 'https://orbit.example.com/terms');
    await screenshot(page, 'a11y-consent-metadata-document');
    const report = await checkAccessibility(page, 'consent of an app from a metadata document');
    assert.ok(report.checkedUrl);
    await context.close();
  });
});
