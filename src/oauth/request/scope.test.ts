/**
 * The `scope` parameter (RFC 6749 §3.3) and Latch's scopes (docs/protocol-decisions.md "Scope": `profile`;
 * `openid` adds OpenID Connect; `email` grants the email claims; the granted scope is what was asked for; no
 * scope means `profile`; anything else is invalid_scope), one clause per row.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidScope } from '../../errors.js';
import { includesAll, parseAuthorizationScope, parseScope } from './scope.js';

describe('parseScope', () => {
  const granted: { rule: string; raw: string | undefined; scope: string[] }[] = [
    { rule: 'RFC 6749 §3.3: scope left out — the server uses its pre-defined default (profile)', raw: undefined, scope: ['profile'] },
    { rule: 'RFC 6749 §3.1: a parameter sent without a value is as if omitted — the default (profile)', raw: '', scope: ['profile'] },
    { rule: 'Latch: a scope of spaces only is no scope — the default (profile)', raw: '   ', scope: ['profile'] },
    { rule: 'README: profile is the scope that carries data', raw: 'profile', scope: ['profile'] },
    { rule: 'OIDC Core §5.4: openid alone grants the account id only, and is reported as asked (no profile added)', raw: 'openid', scope: ['openid'] },
    { rule: 'RFC 6749 §3.3: scope tokens are separated by spaces (openid profile)', raw: 'openid profile', scope: ['openid', 'profile'] },
    { rule: 'RFC 6749 §3.3: the order of the tokens does not matter (profile openid)', raw: 'profile openid', scope: ['openid', 'profile'] },
    { rule: 'OIDC Core §5.4: email alone grants the email claims, reported as email', raw: 'email', scope: ['email'] },
    { rule: 'DESIGN: openid email profile, as common libraries send it, is granted and reported whole (email kept)', raw: 'openid email profile', scope: ['openid', 'profile', 'email'] },
    { rule: 'OIDC Core §5.4: openid email grants the id and the email claims', raw: 'email openid', scope: ['openid', 'email'] },
    { rule: 'RFC 6749 §3.3: a token repeated is the same token', raw: 'openid openid profile', scope: ['openid', 'profile'] },
    { rule: 'Latch: extra spaces between, before and after tokens are tolerated', raw: '  openid   profile ', scope: ['openid', 'profile'] },
    { rule: 'OIDC Core §11: offline_access asks for a refresh token, and is kept in the granted scope', raw: 'openid offline_access', scope: ['openid', 'offline_access'] },
    { rule: 'RFC 6749 §6: offline_access works without openid too (plain OAuth refresh)', raw: 'profile offline_access', scope: ['profile', 'offline_access'] },
  ];
  for (const row of granted) {
    test(row.rule, () => {
      assert.deepEqual(parseScope(row.raw), row.scope);
    });
  }

  const refused: { rule: string; raw: string; description: RegExp }[] = [
    { rule: 'RFC 6749 §4.1.2.1: an unknown scope is invalid_scope (README: anything else is invalid_scope)', raw: 'admin', description: /Unsupported scope 'admin'/ },
    { rule: 'RFC 6749 §4.1.2.1: one unknown token makes the whole scope invalid_scope', raw: 'openid profile write', description: /Unsupported scope 'write'/ },
    { rule: 'RFC 6749 §4.1.2.1: every unknown token is named', raw: 'read openid write', description: /Unsupported scope 'read', 'write'/ },
    { rule: 'RFC 6749 §3.3: scope strings are case-sensitive (OpenID is not openid)', raw: 'OpenID', description: /Unsupported scope 'OpenID'/ },
    { rule: 'RFC 6749 §3.3: tokens are separated by spaces, not commas', raw: 'openid,profile', description: /Unsupported scope 'openid,profile'/ },
    { rule: 'RFC 6749 §3.3: tokens are separated by spaces, and a tab (%x09) is not a scope-token character', raw: 'openid\tprofile', description: /Unsupported scope/ },
    { rule: 'RFC 6749 §3.3: tokens are separated by spaces, not plus signs (already form-decoded)', raw: 'openid+profile', description: /Unsupported scope 'openid\+profile'/ },
  ];
  for (const row of refused) {
    test(row.rule, () => {
      assert.throws(
        () => parseScope(row.raw),
        (error: unknown) => {
          assert.ok(error instanceof InvalidScope, `expected InvalidScope, got ${String(error)}`);
          assert.equal(error.code, 'invalid_scope');
          assert.equal(error.status, 400);
          assert.match(error.description, row.description);
          return true;
        },
      );
    });
  }
});

describe('includesAll', () => {
  const rows: { rule: string; granted: string[]; requested: string[]; covered: boolean }[] = [
    { rule: 'README: consent for the same scopes is remembered', granted: ['openid', 'profile'], requested: ['openid', 'profile'], covered: true },
    { rule: 'README: consent for more scopes covers fewer', granted: ['openid', 'profile'], requested: ['profile'], covered: true },
    { rule: 'README: consent for fewer scopes does not cover more (openid asks again)', granted: ['profile'], requested: ['openid', 'profile'], covered: false },
    { rule: 'spec 1.4: profile covers the email, so a consent to profile covers a request for email', granted: ['profile'], requested: ['email'], covered: true },
    { rule: 'OIDC Core §5.4: a consent to email does not cover profile (name and avatar)', granted: ['email'], requested: ['profile'], covered: false },
    { rule: 'DESIGN: offline access new for this user and app asks again', granted: ['openid', 'profile'], requested: ['openid', 'profile', 'offline_access'], covered: false },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      assert.equal(includesAll(row.granted, row.requested), row.covered);
    });
  }
});

describe('parseAuthorizationScope', () => {
  const rows: { rule: string; raw: string | undefined; scope: string[]; ignored: string[] }[] = [
    { rule: 'OIDC Core §3.1.2.1: in an OpenID Connect request, a value Latch does not know is ignored', raw: 'openid profile address', scope: ['openid', 'profile'], ignored: ['address'] },
    { rule: 'OIDC Core §3.1.2.1: every unknown value is ignored and named once', raw: 'openid phone custom:read phone email', scope: ['openid', 'email'], ignored: ['phone', 'custom:read'] },
    { rule: 'OIDC Core §3.1.2.1: openid with only unknown values still grants openid', raw: 'openid address', scope: ['openid'], ignored: ['address'] },
    { rule: 'the known scopes are granted as parseScope grants them', raw: 'openid email profile offline_access', scope: ['openid', 'profile', 'email', 'offline_access'], ignored: [] },
    { rule: 'no scope is the default, as in parseScope', raw: undefined, scope: ['profile'], ignored: [] },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      assert.deepEqual(parseAuthorizationScope(row.raw), { scope: row.scope, ignored: row.ignored });
    });
  }

  test('RFC 6749 §4.1.2.1: without openid (plain OAuth 2.0), an unknown value is still invalid_scope', () => {
    assert.throws(() => parseAuthorizationScope('profile admin'), (error: unknown) => error instanceof InvalidScope && /Unsupported scope 'admin'/.test(error.description));
  });

  test('OpenID is not openid (case-sensitive): a request without openid, so an unknown value is refused', () => {
    assert.throws(() => parseAuthorizationScope('OpenID profile'), InvalidScope);
  });
});
