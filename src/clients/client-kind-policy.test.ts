import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkClientKind } from './client-kind-policy.js';

const web = ['authorization_code', 'refresh_token'];

test('checkClientKind accepts each kind and names every problem', () => {
  const cases: Array<[string, Parameters<typeof checkClientKind>[0], RegExp[]]> = [
    ['web app', { isPublic: false, grantTypes: web, scope: [] }, []],
    ['single-page app', { isPublic: true, grantTypes: web, scope: [] }, []],
    ['service', { isPublic: false, grantTypes: ['client_credentials'], scope: ['api:read', 'api:write'] }, []],
    ['service without scopes', { isPublic: false, grantTypes: ['client_credentials'], scope: [] }, []],
    ['public service', { isPublic: true, grantTypes: ['client_credentials'], scope: [] }, [/confidential client/]],
    ['unknown grant', { isPublic: false, grantTypes: ['password'], scope: [] }, [/Unknown grant type password/]],
    ['no grant', { isPublic: false, grantTypes: [], scope: [] }, [/at least one grant type/]],
    ['refresh alone', { isPublic: false, grantTypes: ['refresh_token'], scope: [] }, [/refresh_token needs authorization_code/]],
    ['device app (public)', { isPublic: true, grantTypes: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'], scope: [] }, []],
    ['device app (confidential)', { isPublic: false, grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'], scope: [] }, []],
    ['user scope', { isPublic: false, grantTypes: ['client_credentials'], scope: ['openid'] }, [/about a user/]],
    ['bad scope token', { isPublic: false, grantTypes: ['client_credentials'], scope: ['a"b'] }, [/not a valid scope token/]],
    ['scope without the grant', { isPublic: false, grantTypes: web, scope: ['api:read'] }, [/for services/]],
  ];
  for (const [name, kind, expected] of cases) {
    const problems = checkClientKind(kind);
    assert.equal(problems.length, expected.length, `${name}: ${problems.join('; ')}`);
    expected.forEach((pattern, i) => assert.match(problems[i]!, pattern, name));
  }
});
