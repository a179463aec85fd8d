/**
 * Reading request parameters (RFC 6749 §3.1, §3.2): missing, empty, duplicated and oversized, one clause per
 * row.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidRequest, type OAuthErrorOptions } from '../../errors.js';
import type { RawParams } from '../../http/form-body.js';
import { findDuplicatedParam, MAX_PARAMETER_LENGTH, readParam, requireParam } from './params.js';

function assertInvalidRequest(run: () => unknown, description: RegExp, redirectable = true): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof InvalidRequest, `expected InvalidRequest, got ${String(error)}`);
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.status, 400);
    assert.match(error.description, description);
    assert.equal(error.redirectable, redirectable);
    return true;
  });
}

type Options = OAuthErrorOptions & { maxLength?: number };

describe('readParam', () => {
  const read: { rule: string; params: RawParams; options?: Options; value: string | undefined }[] = [
    { rule: 'RFC 6749 §3.1: a parameter that was not sent is absent', params: {}, value: undefined },
    { rule: 'RFC 6749 §3.1: a parameter whose value is undefined is absent', params: { state: undefined }, value: undefined },
    { rule: 'RFC 6749 §3.1: parameters sent without a value MUST be treated as if they were omitted', params: { state: '' }, value: undefined },
    { rule: 'RFC 6749 §3.1: sent once, a parameter is read as sent', params: { state: 'xyz' }, value: 'xyz' },
    { rule: 'RFC 6749 §3.1: a value is read byte for byte (spaces, quotes, non-ASCII kept)', params: { state: ' a "b" é ' }, value: ' a "b" é ' },
    { rule: 'RFC 6749 §3.1: sent once through a parser that gives lists, a parameter is its one value', params: { state: ['xyz'] }, value: 'xyz' },
    { rule: 'RFC 6749 §3.1: sent once without a value through a list parser, it is as if omitted', params: { state: [''] }, value: undefined },
    { rule: 'RFC 6749 §3.1: another parameter sent twice does not concern this one', params: { state: 'xyz', scope: ['a', 'b'] }, value: 'xyz' },
    { rule: 'Latch (params.ts): a value of exactly 4096 characters is read', params: { state: 'a'.repeat(MAX_PARAMETER_LENGTH) }, value: 'a'.repeat(MAX_PARAMETER_LENGTH) },
    { rule: 'Latch (params.ts): a value at a smaller bound the caller sets is read', params: { prompt: 'a'.repeat(128) }, options: { maxLength: 128 }, value: 'a'.repeat(128) },
  ];
  // The parameter read is the first one a row sends (state when it sends none).
  for (const row of read) {
    test(row.rule, () => {
      assert.equal(readParam(row.params, Object.keys(row.params)[0] ?? 'state', row.options), row.value);
    });
  }

  const refused: { rule: string; params: RawParams; options?: Options; description: RegExp; redirectable?: boolean }[] = [
    { rule: 'RFC 6749 §3.1: request parameters MUST NOT be included more than once', params: { state: ['a', 'b'] }, description: /^state was sent more than once/ },
    { rule: 'RFC 6749 §3.1: a parameter sent twice with the same value is still sent twice', params: { state: ['a', 'a'] }, description: /^state was sent more than once/ },
    { rule: 'RFC 6749 §3.1: a parameter sent twice, once empty, is still sent twice', params: { state: ['', 'a'] }, description: /^state was sent more than once/ },
    { rule: 'RFC 6749 §3.1: a parameter sent twice, both empty, is still sent twice', params: { state: ['', ''] }, description: /^state was sent more than once/ },
    { rule: 'RFC 6749 §3.1: three times is more than once', params: { state: ['a', 'b', 'c'] }, description: /^state was sent more than once/ },
    { rule: 'Latch (params.ts): a value longer than 4096 characters is invalid_request', params: { state: 'a'.repeat(MAX_PARAMETER_LENGTH + 1) }, description: /^state is longer than 4096 characters$/ },
    { rule: 'Latch (params.ts): a value longer than the bound the caller sets is invalid_request', params: { prompt: 'a'.repeat(129) }, options: { maxLength: 128 }, description: /^prompt is longer than 128 characters$/ },
    { rule: 'Latch (params.ts): the length bound holds for a value that came as a one-item list', params: { state: ['a'.repeat(MAX_PARAMETER_LENGTH + 1)] }, description: /^state is longer than 4096 characters$/ },
    { rule: 'Latch (params.ts): a value that is not a string (a parsed object) is invalid_request', params: { state: { nested: 'x' } as unknown as string }, description: /^state must be a string$/ },
    { rule: 'Latch (params.ts): a list item that is not a string is invalid_request', params: { state: [{ nested: 'x' }] as unknown as string[] }, description: /^state must be a string$/ },
    {
      rule: 'RFC 6749 §4.1.2.1: before redirect_uri is verified, an error is not redirectable (the caller passes redirectable: false)',
      params: { client_id: ['a', 'b'] },
      options: { redirectable: false },
      description: /^client_id was sent more than once/,
      redirectable: false,
    },
    {
      rule: 'RFC 6749 §4.1.2.1: before redirect_uri is verified, an oversized value is not redirectable either',
      params: { redirect_uri: 'a'.repeat(2001) },
      options: { redirectable: false, maxLength: 2000 },
      description: /^redirect_uri is longer than 2000 characters$/,
      redirectable: false,
    },
  ];
  for (const row of refused) {
    test(row.rule, () => {
      assertInvalidRequest(() => readParam(row.params, Object.keys(row.params)[0]!, row.options), row.description, row.redirectable);
    });
  }
});

describe('requireParam', () => {
  const rows: { rule: string; params: RawParams; value?: string; description?: RegExp }[] = [
    { rule: 'RFC 6749 §4.1.1: a REQUIRED parameter that was sent is read', params: { response_type: 'code' }, value: 'code' },
    { rule: 'RFC 6749 §4.1.2.1: a missing REQUIRED parameter is invalid_request', params: {}, description: /^response_type is required$/ },
    { rule: 'RFC 6749 §3.1: a REQUIRED parameter sent without a value is as if omitted: invalid_request', params: { response_type: '' }, description: /^response_type is required$/ },
    { rule: 'RFC 6749 §3.1: a REQUIRED parameter sent twice is invalid_request', params: { response_type: ['code', 'code'] }, description: /^response_type was sent more than once/ },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      if (row.description) assertInvalidRequest(() => requireParam(row.params, 'response_type'), row.description);
      else assert.equal(requireParam(row.params, 'response_type'), row.value);
    });
  }
});

describe('findDuplicatedParam', () => {
  const rows: { rule: string; params: RawParams; duplicated: string | undefined }[] = [
    { rule: 'RFC 6749 §3.1: parameters each sent once — none duplicated', params: { client_id: 'c', state: 's', scope: ['openid'] }, duplicated: undefined },
    { rule: 'RFC 6749 §3.1: the parameter sent more than once is named, wherever it is in the request', params: { client_id: 'c', state: 's', scope: ['openid', 'profile'] }, duplicated: 'scope' },
    { rule: 'RFC 6749 §3.1: an empty parameter sent twice is still a duplicate', params: { client_id: 'c', nonce: ['', ''] }, duplicated: 'nonce' },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      assert.equal(findDuplicatedParam(row.params), row.duplicated);
    });
  }
});
