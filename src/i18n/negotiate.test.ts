import assert from 'node:assert/strict';
import { test } from 'node:test';
import { acceptLanguageTags, lookup, negotiateLocale } from './negotiate.js';

test('the language of a page, as a table: ui_locales first, then Accept-Language by q-value, then English', () => {
  const table: Array<[uiLocales: string | undefined, acceptLanguage: string | undefined, expected: string]> = [
    [undefined, undefined, 'en'],
    [undefined, '', 'en'],
    [undefined, 'de', 'de'],
    [undefined, 'de-DE,de;q=0.9,en;q=0.8', 'de'],
    [undefined, 'de-AT', 'de'],
    [undefined, 'DE-ch', 'de'],
    [undefined, 'en-GB,en;q=0.9', 'en'],
    [undefined, 'fr-FR,fr;q=0.9', 'en'],
    [undefined, 'fr-FR,fr;q=0.9,de;q=0.5', 'de'],
    [undefined, 'en;q=0.4,de;q=0.7', 'de'],
    [undefined, 'de;q=0.7,en;q=0.7', 'de'],
    [undefined, 'en;q=0.7,de;q=0.7', 'en'],
    [undefined, 'de;q=0,en', 'en'],
    [undefined, 'de;q=0', 'en'],
    [undefined, '*', 'en'],
    [undefined, 'fr,*;q=0.5', 'en'],
    [undefined, 'de;q=2', 'en'],
    [undefined, 'de;q=abc,en;q=0.1', 'en'],
    [undefined, 'de; q=0.8', 'de'],
    [undefined, 'zz-!!,de', 'de'],
    [undefined, 'de-x-private', 'de'],
    ['de', 'en', 'de'],
    ['fr de', 'en', 'de'],
    ['en de', 'de', 'en'],
    ['de-CH', undefined, 'de'],
    ['fr', 'de', 'de'],
    ['fr it', undefined, 'en'],
    ['not_a_tag de', undefined, 'de'],
    ['  de  ', undefined, 'de'],
    ['', 'de', 'de'],
  ];
  for (const [uiLocales, acceptLanguage, expected] of table) {
    assert.equal(negotiateLocale({ uiLocales, acceptLanguage }), expected, `ui_locales=${uiLocales} Accept-Language=${acceptLanguage}`);
  }
});

test('Accept-Language tags are ordered by weight, stable among equals, with q=0 and * left out', () => {
  assert.deepEqual(acceptLanguageTags('fr;q=0.5, de, en;q=0.8, it;q=0, *;q=0.1'), ['de', 'en', 'fr']);
  assert.deepEqual(acceptLanguageTags(undefined), []);
  assert.deepEqual(acceptLanguageTags(',,;q=1'), []);
});

test('lookup falls back from a specific tag to the language (RFC 4647 §3.4) and skips what is not a tag', () => {
  assert.equal(lookup('de-Latn-DE-u-co-phonebk'), 'de');
  assert.equal(lookup('en-US'), 'en');
  assert.equal(lookup('fr'), null);
  assert.equal(lookup('a b'), null);
  assert.equal(lookup(''), null);
});

test('a header of thousands of entries is read in bounded time and only its first entries count', () => {
  const long = `${Array.from({ length: 5000 }, () => 'fr').join(',')},de`;
  const started = performance.now();
  assert.equal(negotiateLocale({ acceptLanguage: long }), 'en');
  assert.ok(performance.now() - started < 50);
});
