/**
 * Property-based tests of the pages' forms (reliability issue item 4): sign-in, sign-up, the consent
 * decision, the account forms, the developer console forms, password reset and email verification, posted by
 * a signed-in browser with a valid CSRF token (so that every form is really read) and hostile field values:
 * missing, duplicated, bracketed into arrays, oversized, odd unicode, NUL bytes, broken percent-encoding.
 * Never a 5xx or a stack trace; a 4xx is a page that says what was wrong.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { inputValue } from '../helpers/browser.js';
import { anyText, assertDescribedClientError, assertNoServerError, checkProperty, sendRaw } from '../helpers/fuzz.js';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.js';
import { signedInBrowser } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

interface PageForm {
  action: string;
  fields: readonly string[];
  /** Values that get past the first checks of this form, so that the later steps are reached too. */
  plausible: readonly string[];
}

/** Field values a person's browser would never send. */
const hostileValue = fc.oneof(
  { weight: 4, arbitrary: anyText },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '\u202eevil', '\u200b', 'e\u0301', '\ufeff', '\ud83d\ude00', '\ud800', '\uffff', '\u0085', '%00', '%ff', '<script>alert(1)</script>') },
  // Oversized, yet mostly within the 64 KiB body limit (beyond it, every form is a 413 before it is read).
  { weight: 1, arbitrary: fc.integer({ min: 300, max: 12_000 }).map((n) => 'é'.repeat(n)) },
);

describe('fuzzing the pages’ forms with a session and a valid CSRF token', () => {
  let server: TestServer;
  let cookie: string;
  let csrf: string;
  let forms: PageForm[];

  before(async () => {
    server = await startTestServer({ env: { LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '1000', LATCH_SIGNIN_MAX_FAILURES_PER_ADDRESS: '100000' } });
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    // An app of this user for the developer console's forms, and an app to consent to.
    const registered = await browser.request(`${server.baseUrl}/developer/apps`, {
      form: { _csrf: inputValue((await browser.request(`${server.baseUrl}/developer`)).body, '_csrf'), name: 'Fuzzed App', redirect_uris: 'https://app.example.com/callback' },
    });
    assert.equal(registered.status, 303, registered.body.slice(0, 300));
    const [owned] = await server.storage.clients.listByOwner(user.id);
    const consentClient = await server.createClient({ redirectUris: ['https://app.example.com/callback'] });
    const authorizationRequest = new URL(
      authorizeUrl(server.baseUrl, { response_type: 'code', client_id: consentClient.clientId, redirect_uri: 'https://app.example.com/callback', scope: 'openid profile', state: 's', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }),
    ).search.slice(1);
    csrf = inputValue((await browser.request(`${server.baseUrl}/account`)).body, '_csrf');
    cookie = await browser.jar.getCookieString(server.baseUrl);
    const app = `/developer/apps/${owned!.clientId}`;
    forms = [
      { action: '/login', fields: ['email', 'password', 'return_to'], plausible: [user.email, password, '/account'] },
      { action: '/signup', fields: ['name', 'email', 'password', 'return_to'], plausible: ['New Person', 'new@example.com', 'a long enough passphrase 1', '/'] },
      { action: '/oauth2/authorize/decision', fields: ['decision', 'authorization_request'], plausible: ['allow', 'deny', authorizationRequest] },
      { action: '/account/profile', fields: ['name', 'avatar_url'], plausible: ['A Name', 'https://images.example.com/a.png'] },
      { action: '/account/password', fields: ['current_password', 'new_password'], plausible: ['wrong password', 'a long enough passphrase 2'] },
      { action: '/account/sessions/end', fields: ['session'], plausible: ['x'] },
      { action: '/account/apps/remove', fields: ['client_id'], plausible: [consentClient.clientId] },
      { action: '/account/avatar/remove', fields: [], plausible: [] },
      { action: '/account/verification-email', fields: [], plausible: [] },
      { action: '/developer/apps', fields: ['name', 'redirect_uris', 'homepage_url', 'logo_url'], plausible: ['App', 'https://a.example.com/cb\nhttp://127.0.0.1/cb', 'https://a.example.com'] },
      { action: `${app}/settings`, fields: ['name', 'redirect_uris', 'homepage_url', 'logo_url'], plausible: ['Fuzzed App', 'https://app.example.com/callback'] },
      { action: `${app}/redirect-uris/add`, fields: ['redirect_uri'], plausible: ['https://app.example.com/other', 'javascript:alert(1)'] },
      { action: `${app}/secret`, fields: ['grace'], plausible: ['none', '60'] },
      { action: `${app}/delete`, fields: ['confirm'], plausible: ['no', 'yes'] },
      { action: '/forgot-password', fields: ['email'], plausible: [user.email, 'nobody@example.com'] },
      { action: '/reset-password', fields: ['token', 'password'], plausible: ['latch_el_x', 'a long enough passphrase 3'] },
      { action: '/verify-email', fields: ['token'], plausible: ['latch_el_x'] },
    ];
  });
  after(async () => server.stop());

  /** One field as a form would carry it: missing, once, repeated, or under a bracketed name (an array to qs-style parsers). */
  function fieldPairs(name: string, plausible: readonly string[]): fc.Arbitrary<Array<[string, string]>> {
    const value = plausible.length > 0 ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...plausible) }, { weight: 3, arbitrary: hostileValue }) : hostileValue;
    return fc.oneof(
      { weight: 1, arbitrary: fc.constant<Array<[string, string]>>([]) },
      { weight: 4, arbitrary: value.map((v): Array<[string, string]> => [[name, v]]) },
      { weight: 1, arbitrary: fc.array(value, { minLength: 2, maxLength: 3 }).map((vs) => vs.map((v): [string, string] => [name, v])) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(`${name}[]`, `${name}[0]`, `${name}[a]`, `${name}.x`), value).map(([n, v]): Array<[string, string]> => [[n, v]]) },
    );
  }

  test('every form, hostile fields: never a 5xx, never a stack trace, a 4xx is a page saying what was wrong', async () => {
    const formIndex = fc.nat({ max: forms.length - 1 });
    await checkProperty(
      fc.asyncProperty(
        formIndex.chain((index) => {
          const form = forms[index]!;
          return fc.record({
            form: fc.constant(form),
            fields: fc.tuple(...form.fields.map((name) => fieldPairs(name, form.plausible))),
            // Mostly the valid token, so that the form is really read; sometimes a broken one.
            csrfPairs: fc.oneof({ weight: 8, arbitrary: fc.constant<Array<[string, string]>>([['_csrf', csrf]]) }, { weight: 1, arbitrary: fieldPairs('_csrf', [csrf]) }),
            extra: fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'x', ''), hostileValue), { maxLength: 2 }),
            brokenTail: fc.constantFrom('', '', '', '&%zz', '&=', '&&', '%', '&a=%ff%fe', '&%00=%00'),
          });
        }),
        async ({ form, fields, csrfPairs, extra, brokenTail }) => {
          const search = new URLSearchParams();
          for (const [name, value] of [...csrfPairs, ...fields.flat(), ...extra]) search.append(name, value);
          const body = `${search.toString()}${brokenTail}`;
          const response = await sendRaw(server.baseUrl, {
            method: 'POST',
            path: form.action,
            headers: [['cookie', cookie], ['content-type', 'application/x-www-form-urlencoded'], ['sec-fetch-site', 'same-origin']],
            body,
          });
          const context = `POST ${form.action} ${JSON.stringify(body.slice(0, 300))}`;
          assertNoServerError(response, context);
          assertDescribedClientError(response, context);
        },
      ),
    );
  });
});
