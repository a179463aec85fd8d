/**
 * Whether the browser session answers an authorization request as it is (OIDC Core §3.1.2.1–§3.1.2.3), one
 * clause per row. `authenticatedAfter` is the marker Latch adds to the return trip from its own sign-in page
 * (oidc-request.ts): a sign-in at or after it is the fresh one prompt=login or max_age asked for.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type SessionFacts, type SignInReason, signInRequirement } from './authentication-requirement.js';
import type { Prompt } from './prompt.js';

const NOW = new Date('2030-06-01T12:00:00.000Z');
const secondsBefore = (seconds: number): Date => new Date(NOW.getTime() - seconds * 1000);
const USER_ID = 7;

/** A session of user 7 that signed in an hour ago, and a request asking for nothing special. */
function facts(overrides: Partial<Omit<SessionFacts, 'prompt'>> & { prompt?: Prompt[] } = {}): SessionFacts {
  const { prompt = [], ...rest } = overrides;
  return {
    session: { userId: USER_ID, authTime: secondsBefore(3600) },
    maxAgeSeconds: null,
    hintedSubject: null,
    authenticatedAfter: null,
    now: NOW,
    ...rest,
    prompt: new Set(prompt),
  };
}

const rows: { rule: string; facts: SessionFacts; reason: SignInReason | null }[] = [
  // No session.
  { rule: 'OIDC Core §3.1.2.3: without a signed-in End-User, the server must authenticate', facts: facts({ session: null }), reason: 'no_session' },
  {
    rule: 'OIDC Core §3.1.2.1: prompt=none without a session still needs a sign-in (authorize.ts answers login_required)',
    facts: facts({ session: null, prompt: ['none'] }),
    reason: 'no_session',
  },
  {
    rule: 'OIDC Core §3.1.2.3: no session is no session, whatever the marker of an earlier sign-in says',
    facts: facts({ session: null, authenticatedAfter: secondsBefore(10) }),
    reason: 'no_session',
  },
  // A session, nothing asked.
  { rule: 'OIDC Core §3.1.2.3: a signed-in End-User with no prompt or max_age needs no new sign-in', facts: facts(), reason: null },
  { rule: 'OIDC Core §3.1.2.1: prompt=none with a session signs in silently', facts: facts({ prompt: ['none'] }), reason: null },
  { rule: 'OIDC Core §3.1.2.1: prompt=consent asks for consent, not for a new sign-in', facts: facts({ prompt: ['consent'] }), reason: null },
  // prompt=login and select_account.
  { rule: 'OIDC Core §3.1.2.1: prompt=login re-authenticates even a signed-in End-User', facts: facts({ prompt: ['login'] }), reason: 'prompt_login' },
  {
    rule: 'OIDC Core §3.1.2.1: prompt=select_account shows the sign-in page (Latch has one account per session)',
    facts: facts({ prompt: ['select_account'] }),
    reason: 'prompt_login',
  },
  {
    rule: 'OIDC Core §3.1.2.1: prompt=login is answered by a sign-in at the marker time (authTime equal to it counts)',
    facts: facts({ prompt: ['login'], session: { userId: USER_ID, authTime: secondsBefore(30) }, authenticatedAfter: secondsBefore(30) }),
    reason: null,
  },
  {
    rule: 'OIDC Core §3.1.2.1: prompt=login is answered by a sign-in after the marker time',
    facts: facts({ prompt: ['login'], session: { userId: USER_ID, authTime: secondsBefore(5) }, authenticatedAfter: secondsBefore(30) }),
    reason: null,
  },
  {
    rule: 'OIDC Core §3.1.2.1: prompt=login is not answered by a session signed in before the marker time',
    facts: facts({ prompt: ['login'], session: { userId: USER_ID, authTime: secondsBefore(31) }, authenticatedAfter: secondsBefore(30) }),
    reason: 'prompt_login',
  },
  // max_age.
  {
    rule: 'OIDC Core §3.1.2.1: max_age — an authentication older than max_age seconds needs a new sign-in',
    facts: facts({ maxAgeSeconds: 3599 }),
    reason: 'max_age',
  },
  {
    rule: 'OIDC Core §3.1.2.1: max_age — an authentication exactly max_age seconds old is not older than it',
    facts: facts({ maxAgeSeconds: 3600 }),
    reason: null,
  },
  {
    rule: 'OIDC Core §3.1.2.1: max_age — one millisecond past max_age is older than it',
    facts: facts({ maxAgeSeconds: 3600, session: { userId: USER_ID, authTime: new Date(secondsBefore(3600).getTime() - 1) } }),
    reason: 'max_age',
  },
  { rule: 'OIDC Core §3.1.2.1: max_age — an authentication younger than max_age is kept', facts: facts({ maxAgeSeconds: 86400 }), reason: null },
  {
    rule: 'OIDC Core §3.1.2.1: max_age=0 — any earlier authentication is too old (the same as prompt=login)',
    facts: facts({ maxAgeSeconds: 0, session: { userId: USER_ID, authTime: secondsBefore(1) } }),
    reason: 'max_age',
  },
  {
    rule: 'OIDC Core §3.1.2.1: max_age is answered by a sign-in at or after the marker, however long the request then took',
    facts: facts({ maxAgeSeconds: 0, session: { userId: USER_ID, authTime: secondsBefore(20) }, authenticatedAfter: secondsBefore(25) }),
    reason: null,
  },
  {
    rule: 'OIDC Core §3.1.2.1: prompt=login is checked before max_age (a young session still re-authenticates)',
    facts: facts({ prompt: ['login'], maxAgeSeconds: 86400 }),
    reason: 'prompt_login',
  },
  // id_token_hint.
  {
    rule: 'OIDC Core §3.1.2.1: an id_token_hint naming the signed-in End-User is answered by the session',
    facts: facts({ hintedSubject: String(USER_ID) }),
    reason: null,
  },
  {
    rule: 'OIDC Core §3.1.2.1: an id_token_hint naming another End-User is not answered by this session',
    facts: facts({ hintedSubject: '8' }),
    reason: 'other_user',
  },
  {
    rule: 'OIDC Core §3.1.2.1: the hint is compared with the session user as sub, a string (07 is not 7)',
    facts: facts({ hintedSubject: '07' }),
    reason: 'other_user',
  },
  {
    rule: 'OIDC Core §3.1.2.1: a fresh sign-in as another End-User than the hint names still does not answer the request',
    facts: facts({ hintedSubject: '8', prompt: ['login'], session: { userId: USER_ID, authTime: secondsBefore(1) }, authenticatedAfter: secondsBefore(5) }),
    reason: 'other_user',
  },
  {
    rule: 'OIDC Core §3.1.2.1: with prompt=none, a session of another End-User than the hint is not used silently',
    facts: facts({ hintedSubject: '8', prompt: ['none'] }),
    reason: 'other_user',
  },
];

describe('signInRequirement', () => {
  for (const row of rows) {
    test(row.rule, () => {
      assert.equal(signInRequirement(row.facts), row.reason);
    });
  }
});
