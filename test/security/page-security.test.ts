import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse as parseHtml } from 'node-html-parser';
import { MAX_AVATAR_BYTES } from '../../src/accounts/avatar-images.js';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { solidPng } from '../helpers/chromium.js';
import { startFakeSmtp } from '../helpers/fake-smtp.js';
import { fieldError, followRedirect, linkFromOutbox, signedInBrowser, submitForm, valueById } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('page security and accessibility rules', () => {
  let server: TestServer;
  let browser: TestBrowser;
  let clientId: string;
  let userId: number;
  let pagePaths: string[];

  before(async () => {
    server = await startTestServer();
    const { user, password } = await server.createUser({ name: 'Original Name' });
    userId = user.id;
    browser = await signedInBrowser(server, user.email, password);
    const registered = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', { name: 'Secure App', redirect_uris: 'https://secure.example.com/cb', homepage_url: '', logo_url: '' });
    clientId = valueById((await followRedirect(browser, server.baseUrl, registered)).body, 'client_id');
    await submitForm(browser, server.baseUrl, '/forgot-password', '/forgot-password', { email: user.email });
    const resetLink = new URL(await linkFromOutbox(server, user.email, '/reset-password'));
    pagePaths = ['/', '/login', '/signup', '/forgot-password', `${resetLink.pathname}${resetLink.search}`, '/account', '/account/two-step', '/developer', `/developer/apps/${clientId}`, `/developer/apps/${clientId}/playground`, '/dev/outbox'];
  });
  after(async () => server.stop());

  test('every page sends a strict CSP without inline script, cannot be framed, sends no referrer and is not cached', async () => {
    for (const path of pagePaths) {
      const response = await browser.request(`${server.baseUrl}${path}`);
      assert.equal(response.status, 200, path);
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /script-src 'self'(;|$)/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, path);
      assert.equal(response.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer', path);
      assert.equal(response.headers.get('cache-control'), 'no-store', path);
      assert.doesNotMatch(response.body, /<script(?![^>]*\bsrc="\/assets\/(latch|passkeys)\.js")/, `${path} has only the same-origin script`);
      assert.doesNotMatch(response.body, /\son[a-z]+="/i, `${path} has no inline event handlers`);
    }
  });

  test('every form that posts carries a CSRF token, and every visible input has a label', async () => {
    for (const path of pagePaths) {
      const root = parseHtml((await browser.request(`${server.baseUrl}${path}`)).body);
      for (const form of root.querySelectorAll('form')) {
        assert.equal(form.getAttribute('method'), 'post', `${path}: forms post`);
        assert.ok(form.querySelector('input[name="_csrf"]')?.getAttribute('value'), `${path}: form ${form.getAttribute('action')} has _csrf`);
      }
      for (const input of root.querySelectorAll('input, textarea, select')) {
        const type = input.getAttribute('type');
        if (type === 'hidden') continue;
        const id = input.getAttribute('id');
        const labelled = (id && root.querySelector(`label[for="${id}"]`)) || input.getAttribute('aria-label') || input.closest('label');
        assert.ok(labelled, `${path}: input ${input.getAttribute('name') ?? id} has a label`);
      }
    }
  });

  test('every state-changing form refuses a post without its CSRF token with 403, and changes nothing', async () => {
    const posts = [
      '/login', '/logout', '/signup', '/verify-email', '/forgot-password', '/reset-password',
      '/account/profile', '/account/avatar/remove', '/account/password', '/account/sessions/end', '/account/sessions/end-all', '/account/apps/remove', '/account/verification-email',
      '/oauth2/logout/confirm',
      '/developer/apps', `/developer/apps/${clientId}/settings`, `/developer/apps/${clientId}/redirect-uris/add`, `/developer/apps/${clientId}/secret`, `/developer/apps/${clientId}/delete`,
      ...['callback-uri', 'callback-uri/remove', 'start', 'exchange', 'reset'].map((action) => `/developer/apps/${clientId}/playground/${action}`),
    ];
    const clientBefore = await server.storage.clients.findById(clientId);
    for (const path of posts) {
      const response = await browser.request(`${server.baseUrl}${path}`, { form: { name: 'Changed', confirm: 'yes', redirect_uris: 'https://evil.example.com/cb', redirect_uri: 'https://evil.example.com/cb' } });
      assert.equal(response.status, 403, `${path} without _csrf`);
    }
    const multipart = new FormData();
    multipart.append('avatar', new Blob([new Uint8Array(solidPng(8, 8, [0, 0, 0]))], { type: 'image/png' }), 'a.png');
    const upload = await fetch(`${server.baseUrl}/account/avatar`, { method: 'POST', body: multipart, headers: { cookie: await browser.jar.getCookieString(server.baseUrl) } });
    assert.equal(upload.status, 403, '/account/avatar without _csrf');
    assert.deepEqual(await server.storage.clients.findById(clientId), clientBefore);
    const user = await server.storage.users.findById(userId);
    assert.equal(user?.name, 'Original Name');
    assert.equal(user?.avatarUrl, 'https://images.example.com/avatar.png');
  });

  async function uploadAvatar(data: Buffer, filename = 'avatar.png') {
    const page = await browser.request(`${server.baseUrl}/account`);
    const form = new FormData();
    form.append('_csrf', inputValue(page.body, '_csrf'));
    form.append('avatar', new Blob([new Uint8Array(data)], { type: 'image/png' }), filename);
    const response = await fetch(`${server.baseUrl}/account/avatar`, { method: 'POST', body: form, redirect: 'manual', headers: { cookie: await browser.jar.getCookieString(server.baseUrl) } });
    return { status: response.status, body: await response.text(), location: response.headers.get('location') };
  }

  test('an avatar upload is checked by its bytes (not its name or type) and by size', async () => {
    const svg = await uploadAvatar(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'), 'avatar.png');
    assert.equal(svg.status, 400);
    assert.match(fieldError(svg.body, 'avatar_file') ?? '', /not a PNG, JPEG, GIF or WebP/);
    const huge = Buffer.concat([solidPng(4, 4, [1, 2, 3]), Buffer.alloc(MAX_AVATAR_BYTES)]);
    const tooLarge = await uploadAvatar(huge);
    assert.equal(tooLarge.status, 400);
    assert.match(fieldError(tooLarge.body, 'avatar_file') ?? '', /larger than 1 MB/);
    const empty = await uploadAvatar(Buffer.alloc(0));
    assert.match(fieldError(empty.body, 'avatar_file') ?? '', /Choose an image/);
    assert.equal((await server.storage.users.findById(userId))?.avatarUrl, 'https://images.example.com/avatar.png');
  });

  test('an uploaded avatar is served from Latch’s origin with its sniffed type, embeddable by client apps, and replaces the old one', async () => {
    const png = solidPng(16, 16, [200, 30, 30]);
    const first = await uploadAvatar(png);
    assert.equal(first.status, 303);
    const firstUrl = (await server.storage.users.findById(userId))?.avatarUrl ?? '';
    assert.ok(firstUrl.startsWith(`${server.config.issuer}/avatars/`), firstUrl);
    const served = await fetch(firstUrl);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(served.headers.get('cross-origin-resource-policy'), 'cross-origin');
    assert.match(served.headers.get('content-security-policy') ?? '', /default-src 'none'; sandbox/);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), png);

    await uploadAvatar(solidPng(16, 16, [30, 30, 200]));
    const secondUrl = (await server.storage.users.findById(userId))?.avatarUrl ?? '';
    assert.notEqual(secondUrl, firstUrl);
    assert.equal((await fetch(firstUrl)).status, 404, 'the replaced image is gone');
    assert.equal((await fetch(secondUrl)).status, 200);
  });
});

describe('mail delivery', () => {
  test('with LATCH_SMTP_URL set, mail goes out over SMTP, not to the outbox, and /dev/outbox does not exist', async () => {
    const smtp = await startFakeSmtp();
    const server = await startTestServer({ env: { LATCH_SMTP_URL: smtp.url, LATCH_MAIL_FROM: 'Latch <id@example.com>' } });
    try {
      const response = await submitForm(new TestBrowser(), server.baseUrl, '/signup', '/signup', { return_to: '/', name: 'Smtp User', email: 'smtp-user@example.com', password: 'correct horse battery staple' });
      assert.equal(response.status, 303);
      assert.equal(smtp.received.length, 1);
      const mail = smtp.received[0]!;
      assert.match(mail.to.join(), /smtp-user@example\.com/);
      assert.match(mail.from, /id@example\.com/);
      assert.match(mail.data, /Subject: Confirm your email address for Latch/);
      assert.match(mail.data.replace(/=\r\n/g, ''), new RegExp(`${server.config.issuer}/verify-email\\?token=3Dlatch_el_|${server.config.issuer}/verify-email\\?token=latch_el_`));
      assert.equal((await server.storage.outbox.listRecent(10)).length, 0);
      assert.equal((await fetch(`${server.baseUrl}/dev/outbox`)).status, 404);
    } finally {
      await server.stop();
      await smtp.close();
    }
  });

  test('without SMTP on a public issuer, /dev/outbox does not exist (it holds live reset links)', async () => {
    const server = await startTestServer({ env: { LATCH_ISSUER: 'https://id.example.com' } });
    try {
      assert.equal((await fetch(`${server.baseUrl}/dev/outbox`)).status, 404);
    } finally {
      await server.stop();
    }
  });
});
