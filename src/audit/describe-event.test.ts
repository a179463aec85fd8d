import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeAuditEvent } from './describe-event.js';

test('describeAuditEvent: the label, the app, and the reason in words', () => {
  const cases: Array<{ type: string; details: Record<string, unknown> | null; app: string | null; text: string }> = [
    { type: 'user.signin.succeeded', details: null, app: null, text: 'Signed in' },
    { type: 'user.signin.failed', details: { reason: 'wrong_password' }, app: null, text: 'Sign-in failed (wrong password)' },
    { type: 'user.session.signed_out', details: { reason: 'rp_initiated_logout' }, app: 'Photos', text: 'Signed out: Photos (an app signed you out)' },
    { type: 'consent.granted', details: { scope: ['openid'] }, app: 'Photos', text: 'Allowed an app to use the account: Photos' },
    // A deleted app is named by what the event kept.
    { type: 'client.deleted', details: { name: 'Old App', via: 'console' }, app: null, text: 'App deleted: Old App' },
    { type: 'user.password.changed', details: null, app: null, text: 'Password changed' },
    // A reason this page does not know is left out rather than shown raw.
    { type: 'user.signin.failed', details: { reason: 'something_new' }, app: null, text: 'Sign-in failed' },
    { type: 'some.future_type', details: null, app: null, text: 'some.future_type' },
  ];
  for (const { type, details, app, text } of cases) assert.equal(describeAuditEvent({ type, details }, app), text);
});
