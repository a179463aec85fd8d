import assert from 'node:assert/strict';
import { test } from 'node:test';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { ACCOUNT_ACTIVITY_TYPES } from '../audit/event-types.js';
import { SUPPORTED_LOCALES } from './locales.js';
import { CATALOGUES, type Message, type MessageKey } from './messages/index.js';
import { translator } from './translator.js';

const placeholders = (text: string) => new Set([...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!));
const forms = (message: Message) => (typeof message === 'string' ? [message] : Object.values(message));

test('every language has the same messages as English, with the same placeholders and no HTML', () => {
  const english = CATALOGUES.en;
  for (const locale of SUPPORTED_LOCALES) {
    const catalogue = CATALOGUES[locale];
    assert.deepEqual(Object.keys(catalogue).sort(), Object.keys(english).sort(), locale);
    for (const key of Object.keys(english) as MessageKey[]) {
      const wanted = new Set(forms(english[key]).flatMap((form) => [...placeholders(form)]));
      for (const form of forms(catalogue[key])) {
        // A plural form may say its number in words ("eine Sekunde"): {count} alone may be left out.
        const found = placeholders(form);
        assert.deepEqual([...found].filter((name) => !wanted.has(name)), [], `${locale} ${key}: a placeholder English does not have`);
        assert.deepEqual([...wanted].filter((name) => !found.has(name) && name !== 'count'), [], `${locale} ${key}: a placeholder left out`);
        assert.doesNotMatch(form, /<[a-z/]/i, `${locale} ${key}: HTML in a message`);
      }
      if (typeof catalogue[key] !== 'string') assert.ok('other' in (catalogue[key] as object), `${locale} ${key}: a plural needs its "other" form`);
    }
  }
});

test('plurals follow Intl.PluralRules, numbers are written in the language', () => {
  const en = translator('en');
  const de = translator('de');
  assert.equal(en.t('twoStepSettings.recovery.left', { count: 1 }), '1 code is left.');
  assert.equal(en.t('twoStepSettings.recovery.left', { count: 0 }), '0 codes are left.');
  assert.equal(de.t('twoStepSettings.recovery.left', { count: 1 }), 'Es ist noch 1 Code übrig.');
  assert.equal(de.t('twoStepSettings.recovery.left', { count: 7 }), 'Es sind noch 7 Codes übrig.');
  assert.equal(de.t('error.description.429', { count: 1 }), 'Aus Ihrem Netzwerk kamen gerade zu viele Anfragen. Warten Sie 1 Sekunde und versuchen Sie es dann noch einmal.');
  assert.equal(en.t('error.description.429', { count: 1200 }), 'Too many requests came from your network just now. Wait 1,200 seconds, then try again.');
  assert.equal(de.t('error.description.429', { count: 1200 }), 'Aus Ihrem Netzwerk kamen gerade zu viele Anfragen. Warten Sie 1.200 Sekunden und versuchen Sie es dann noch einmal.');
});

test('durations, dates and relative times are written by Intl in the language', () => {
  const en = translator('en');
  const de = translator('de');
  assert.deepEqual([86400, 3600, 7200, 604800, 900, 60].map(en.duration), ['24 hours', '1 hour', '2 hours', '7 days', '15 minutes', '1 minute']);
  assert.deepEqual([86400, 3600, 7200, 604800, 900, 60].map(de.duration), ['24 Stunden', '1 Stunde', '2 Stunden', '7 Tage', '15 Minuten', '1 Minute']);
  const at = new Date('2026-11-25T14:05:09Z');
  assert.equal(en.dateTime(at), '2026-11-25 14:05 UTC');
  assert.equal(de.dateTime(at), '25.11.2026, 14:05 UTC');
  const now = new Date('2026-11-25T15:05:09Z');
  assert.equal(en.relativeTime(at, now), '1 hour ago');
  assert.equal(de.relativeTime(at, now), 'vor 1 Stunde');
  assert.equal(de.relativeTime(new Date(now.getTime() + 3 * 86400_000), now), 'in 3 Tagen');
});

test('a message with parts puts the elements where its placeholders are, escaped by the renderer', () => {
  const de = translator('de');
  const html = renderToString(h('p', null, de.rich('consent.sendBackHomepage', { host: h('strong', null, '<b>x</b>'), homepage: h('a', { href: '/' }, 'home') })));
  assert.equal(html, '<p>Danach kehren Sie zu <strong>&lt;b>x&lt;/b></strong> (<a href="/">home</a>) zurück.</p>');
  assert.throws(() => de.t('consent.title'), /\{app\} was not given/);
  assert.throws(() => de.rich('consent.title', {}), /\{app\} was not given/);
});

test('every event the account page lists has its words in the catalogue (else another language shows "Other change")', () => {
  const de = translator('de');
  assert.deepEqual(ACCOUNT_ACTIVITY_TYPES.filter((type) => !de.has(`activity.${type}`)), []);
});
