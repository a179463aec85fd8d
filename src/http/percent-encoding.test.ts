import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isParsedForm, parseWellFormedForm, percentEncodingProblem } from './percent-encoding.js';

test('percentEncodingProblem: RFC 3986 §2.1 escapes of UTF-8 text pass; broken ones are named', () => {
  const cases: Array<[string, RegExp | null]> = [
    ['client_id=abc&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb', null],
    ['scope=openid+profile', null],
    ['name=J%C3%BCrgen', null],
    ['state=%e2%9c%93', null],
    ['', null],
    ['a=%ZZ', /% sign not followed by two hexadecimal digits/],
    ['a=100%', /% sign not followed by two hexadecimal digits/],
    ['a=%4', /% sign not followed by two hexadecimal digits/],
    ['a=%E0%A4%A', /% sign not followed by two hexadecimal digits/],
    ['a=%C3', /do not form UTF-8 text/],
    ['a=%FF%FE', /do not form UTF-8 text/],
    ['a=%ED%A0%80', /do not form UTF-8 text/],
  ];
  for (const [encoded, problem] of cases) {
    const found = percentEncodingProblem(encoded);
    if (problem === null) assert.equal(found, null, encoded);
    else assert.match(found ?? '', problem, encoded);
  }
});

test('parseWellFormedForm: parses as node:querystring does, and refuses what percentEncodingProblem names', () => {
  assert.deepEqual({ ...parseWellFormedForm('grant_type=authorization_code&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&scope=openid+profile&n=J%C3%BCrgen&n=2') }, {
    grant_type: 'authorization_code',
    redirect_uri: 'https://app.example.com/cb',
    scope: 'openid profile',
    n: ['Jürgen', '2'],
  });
  assert.deepEqual({ ...parseWellFormedForm('') }, {});
  const cases: Array<[string, RegExp]> = [
    ['a=%ZZ', /% sign not followed by two hexadecimal digits/],
    ['code=abc&a=100%', /% sign not followed by two hexadecimal digits/],
    ['%ZZ=1', /% sign not followed by two hexadecimal digits/],
    ['a=%C3', /do not form UTF-8 text/],
    ['a=ok&b=%FF%FE+x', /do not form UTF-8 text/],
  ];
  for (const [body, problem] of cases) {
    assert.throws(() => parseWellFormedForm(body), (error: Error) => problem.test(error.message) && /invalid_request|malformed percent-encoding/.test(`${(error as { code?: string }).code} ${error.message}`), body);
  }
});

test('isParsedForm: what parseWellFormedForm returned, and nothing shaped like it, reads as plain parameters', () => {
  const parsed = parseWellFormedForm('token=abc&__proto__=x&constructor=y&a=1&a=2');
  assert.equal(isParsedForm(parsed), true);
  // No prototype: __proto__ and constructor are ordinary parameters, and nothing is inherited.
  assert.equal('hasOwnProperty' in parsed, false);
  assert.equal(parsed['__proto__'], 'x');
  assert.equal(parsed['constructor'], 'y');
  assert.equal(parsed['toString'], undefined);
  assert.deepEqual(parsed['a'], ['1', '2']);
  // A JSON body or any other object, even with the same members, is checked and copied by its reader (form-body.ts).
  for (const other of [{ token: 'abc' }, Object.assign(Object.create(null), { token: 'abc' }), 'token=abc', null, undefined, ['token']]) {
    assert.equal(isParsedForm(other), false, JSON.stringify(other));
  }
});
