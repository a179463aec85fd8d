/** RouteMethods: the Allow header of a 405 (RFC 9110 §15.5.6) from the routes as registered. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRouteMethods } from './route-methods.js';

const routes = createRouteMethods();
routes.add('POST', '/oauth2/token');
routes.add(['GET', 'HEAD'], '/oauth2/userinfo');
routes.add('POST', '/oauth2/userinfo');
routes.add('GET', '/developer/apps/:clientId');
routes.add('POST', '/developer/apps/:clientId/delete');
routes.add('GET', '/developer/apps/:clientId');

const rows: { rule: string; path: string; allow: string[] }[] = [
  { rule: 'a POST-only endpoint answers POST', path: '/oauth2/token', allow: ['POST'] },
  { rule: 'every method of a path is named, sorted', path: '/oauth2/userinfo', allow: ['GET', 'HEAD', 'POST'] },
  { rule: 'a parametric route matches a concrete path', path: '/developer/apps/abc123', allow: ['GET'] },
  { rule: 'a deeper parametric route matches its own path only', path: '/developer/apps/abc123/delete', allow: ['POST'] },
  { rule: 'an unknown path answers nothing (then it is a 404)', path: '/oauth2/tokens', allow: [] },
  { rule: 'a trailing slash is another path', path: '/oauth2/token/', allow: [] },
  { rule: 'a registered route twice is recorded once', path: '/developer/apps/x', allow: ['GET'] },
];
for (const row of rows) {
  test(row.rule, () => {
    assert.deepEqual(routes.allowed(row.path), row.allow);
  });
}
