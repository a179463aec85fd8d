/**
 * The `prompt` and `max_age` parameters (OIDC Core §3.1.2.1), one clause per row. Latch's own decisions are
 * in prompt.ts: `select_account` is accepted (and treated as `login` by signInRequirement), and an unknown value
 * is invalid_request rather than ignored.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidRequest } from '../../errors.js';
import { parseMaxAge, parsePrompt, type Prompt } from './prompt.js';

function assertInvalidRequest(run: () => unknown, description: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof InvalidRequest, `expected InvalidRequest, got ${String(error)}`);
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.status, 400);
    assert.match(error.description, description);
    return true;
  });
}

describe('parsePrompt', () => {
  const accepted: { rule: string; raw: string | undefined; prompts: Prompt[] }[] = [
    { rule: 'OIDC Core §3.1.2.1: prompt is OPTIONAL; left out, it asks for nothing', raw: undefined, prompts: [] },
    { rule: 'OIDC Core §3.1.2.1: none — no authentication or consent page is shown', raw: 'none', prompts: ['none'] },
    { rule: 'OIDC Core §3.1.2.1: login — the End-User is asked to re-authenticate', raw: 'login', prompts: ['login'] },
    { rule: 'OIDC Core §3.1.2.1: consent — the End-User is asked for consent again', raw: 'consent', prompts: ['consent'] },
    { rule: 'OIDC Core §3.1.2.1: select_account — accepted (Latch shows the sign-in page)', raw: 'select_account', prompts: ['select_account'] },
    { rule: 'OIDC Core §3.1.2.1: prompt is a space-delimited list (login consent)', raw: 'login consent', prompts: ['login', 'consent'] },
    { rule: 'OIDC Core §3.1.2.1: every supported value may be listed together, except none', raw: 'consent select_account login', prompts: ['consent', 'select_account', 'login'] },
    { rule: 'OIDC Core §3.1.2.1: a value listed twice is the same value (none none is still only none)', raw: 'none none', prompts: ['none'] },
    { rule: 'Latch: extra spaces between, before and after values are tolerated', raw: '  login   consent ', prompts: ['login', 'consent'] },
  ];
  for (const row of accepted) {
    test(row.rule, () => {
      assert.deepEqual([...parsePrompt(row.raw)], row.prompts);
    });
  }

  const refused: { rule: string; raw: string; description: RegExp }[] = [
    { rule: 'OIDC Core §3.1.2.1: none with any other value is an error (none login)', raw: 'none login', description: /prompt=none cannot be combined/ },
    { rule: 'OIDC Core §3.1.2.1: none with any other value is an error, in any order (consent none)', raw: 'consent none', description: /prompt=none cannot be combined/ },
    { rule: 'Latch (prompt.ts): an unknown value is invalid_request, so a typo does not skip a re-authentication', raw: 'login relogin', description: /prompt value "relogin" is not supported/ },
    { rule: 'OIDC Core §3.1.2.1: values are case sensitive (LOGIN is not login)', raw: 'LOGIN', description: /prompt value "LOGIN" is not supported/ },
    { rule: 'OIDC Core §3.1.2.1: values are delimited by spaces only, not by tabs', raw: 'login\tconsent', description: /is not supported/ },
    { rule: 'OIDC Core §3.1.2.1: values are delimited by spaces, not commas', raw: 'login,consent', description: /prompt value "login,consent" is not supported/ },
    { rule: 'Latch: the echoed unknown value is cut to 40 characters', raw: `x${'y'.repeat(100)}`, description: new RegExp(`^prompt value "x${'y'.repeat(39)}" is not supported`) },
  ];
  for (const row of refused) {
    test(row.rule, () => {
      assertInvalidRequest(() => parsePrompt(row.raw), row.description);
    });
  }
});

describe('parseMaxAge', () => {
  const TEN_YEARS_SECONDS = 10 * 365 * 86400;
  const accepted: { rule: string; raw: string | undefined; seconds: number | null }[] = [
    { rule: 'OIDC Core §3.1.2.1: max_age is OPTIONAL; left out, no age limit', raw: undefined, seconds: null },
    { rule: 'OIDC Core §3.1.2.1: max_age is a number of seconds (3600)', raw: '3600', seconds: 3600 },
    { rule: 'OIDC Core §3.1.2.1: max_age=0 is allowed (the same as prompt=login)', raw: '0', seconds: 0 },
    { rule: 'Latch: leading zeros are still decimal digits (010 is ten seconds)', raw: '010', seconds: 10 },
    { rule: 'Latch (prompt.ts): up to ten years is accepted', raw: String(TEN_YEARS_SECONDS), seconds: TEN_YEARS_SECONDS },
  ];
  for (const row of accepted) {
    test(row.rule, () => {
      assert.equal(parseMaxAge(row.raw), row.seconds);
    });
  }

  const refused: { rule: string; raw: string; description: RegExp }[] = [
    { rule: 'OIDC Core §3.1.2.1: a negative number is no allowable elapsed time', raw: '-1', description: /non-negative integer/ },
    { rule: 'OIDC Core §3.1.2.1: a number of seconds is an integer (1.5 is refused)', raw: '1.5', description: /non-negative integer/ },
    { rule: 'Latch: digits only, no sign (+5)', raw: '+5', description: /non-negative integer/ },
    { rule: 'Latch: digits only, no surrounding space', raw: ' 5', description: /non-negative integer/ },
    { rule: 'Latch: digits only, no exponent (1e3)', raw: '1e3', description: /non-negative integer/ },
    { rule: 'Latch: digits only, not a word', raw: 'never', description: /non-negative integer/ },
    { rule: 'Latch: at most 10 digits, so the number never overflows', raw: '12345678901', description: /non-negative integer/ },
    { rule: 'Latch (prompt.ts): more than ten years is refused', raw: String(TEN_YEARS_SECONDS + 1), description: new RegExp(`at most ${TEN_YEARS_SECONDS} seconds`) },
  ];
  for (const row of refused) {
    test(row.rule, () => {
      assertInvalidRequest(() => parseMaxAge(row.raw), row.description);
    });
  }
});
