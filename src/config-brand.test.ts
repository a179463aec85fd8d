/**
 * Branding settings (LATCH_BRAND_*, config-brand.ts) as a table: what each accepts, and every refusal stops the
 * start with the variable's name and what to do.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contrastRatio } from './config-brand.js';
import { ConfigError, loadConfig } from './config.js';

const load = (env: Record<string, string>) => loadConfig({ LATCH_DATABASE_URL: 'sqlite::memory:', ...env });

test('the defaults: the name Latch, its blue, no logo, favicon or footer links; the mail sender carries the name', () => {
  const config = load({});
  assert.deepEqual(config.brand, { name: 'Latch', accentColour: '#0b5cd5', logoUrl: null, faviconUrl: null, privacyUrl: null, termsUrl: null, helpUrl: null });
  assert.equal(config.mailFrom, 'Latch <no-reply@localhost>');
});

test('accepted brand settings, as they are kept', () => {
  const cases: Array<[Record<string, string>, Partial<ReturnType<typeof load>['brand']>]> = [
    [{ LATCH_BRAND_NAME: '  Orbit Accounts ' }, { name: 'Orbit Accounts' }],
    [{ LATCH_BRAND_NAME: '' }, { name: 'Latch' }],
    [{ LATCH_BRAND_ACCENT: '#7C3AED' }, { accentColour: '#7c3aed' }],
    [{ LATCH_BRAND_ACCENT: '#036' }, { accentColour: '#003366' }],
    [{ LATCH_BRAND_ACCENT: ' ' }, { accentColour: '#0b5cd5' }],
    [{ LATCH_BRAND_LOGO_URL: 'https://cdn.example.com/logo.svg' }, { logoUrl: 'https://cdn.example.com/logo.svg' }],
    [{ LATCH_BRAND_FAVICON_URL: 'https://cdn.example.com/icon.png' }, { faviconUrl: 'https://cdn.example.com/icon.png' }],
    [{ LATCH_BRAND_PRIVACY_URL: 'https://example.com/privacy' }, { privacyUrl: 'https://example.com/privacy' }],
    [{ LATCH_BRAND_TERMS_URL: 'https://example.com/terms' }, { termsUrl: 'https://example.com/terms' }],
    [{ LATCH_BRAND_HELP_URL: 'https://help.example.com/' }, { helpUrl: 'https://help.example.com/' }],
    // On an http:// (development) issuer, the footer links may be http:// too.
    [{ LATCH_BRAND_HELP_URL: 'http://localhost:8080/help' }, { helpUrl: 'http://localhost:8080/help' }],
  ];
  for (const [env, expected] of cases) {
    const brand = load(env).brand;
    for (const [key, value] of Object.entries(expected)) assert.equal(brand[key as keyof typeof brand], value, JSON.stringify(env));
  }
});

test('invalid brand settings stop the start, each named with what to do', () => {
  const https = { LATCH_ISSUER: 'https://id.example.com' };
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ LATCH_BRAND_NAME: 'x'.repeat(61) }, /LATCH_BRAND_NAME must be 1 to 60 characters/],
    [{ LATCH_BRAND_NAME: 'Orbit\r\nBcc: someone@example.com' }, /LATCH_BRAND_NAME must be 1 to 60 characters without control characters/],
    [{ LATCH_BRAND_ACCENT: 'blue' }, /LATCH_BRAND_ACCENT must be a colour written #rgb or #rrggbb, e.g. #0b5cd5 \(got "blue"\)/],
    [{ LATCH_BRAND_ACCENT: '#12345' }, /LATCH_BRAND_ACCENT must be a colour written #rgb or #rrggbb/],
    [{ LATCH_BRAND_ACCENT: 'rgb(0,0,0)' }, /LATCH_BRAND_ACCENT must be a colour/],
    // White text on orange is unreadable: refused with the contrast it reaches.
    [{ LATCH_BRAND_ACCENT: '#ff8800' }, /LATCH_BRAND_ACCENT #ff8800 is too light: .* reach 2\.\d\d:1, and WCAG 2 asks for 4\.5:1/],
    [{ LATCH_BRAND_ACCENT: '#fff' }, /too light/],
    [{ LATCH_BRAND_LOGO_URL: 'logo.png' }, /LATCH_BRAND_LOGO_URL must be an absolute URL of the logo image/],
    [{ LATCH_BRAND_LOGO_URL: 'http://cdn.example.com/logo.png' }, /LATCH_BRAND_LOGO_URL must be an https:\/\/ URL of the logo image/],
    [{ LATCH_BRAND_FAVICON_URL: 'data:image/png;base64,AAAA' }, /LATCH_BRAND_FAVICON_URL must be an https:\/\/ URL/],
    [{ LATCH_BRAND_PRIVACY_URL: 'javascript:alert(1)' }, /LATCH_BRAND_PRIVACY_URL must be an http:\/\/ or https:\/\/ URL of the privacy policy/],
    [{ ...https, LATCH_BRAND_TERMS_URL: 'http://example.com/terms' }, /LATCH_BRAND_TERMS_URL must be an https:\/\/ URL of the terms of use/],
    [{ LATCH_BRAND_HELP_URL: 'https://user:pw@help.example.com/' }, /LATCH_BRAND_HELP_URL must be .* without a user name or password/],
  ];
  for (const [env, message] of cases) {
    assert.throws(() => load(env), (error: unknown) => error instanceof ConfigError && message.test(error.message), JSON.stringify(env));
  }
  // Every problem at once, as for every other setting.
  assert.throws(() => load({ LATCH_BRAND_ACCENT: 'blue', LATCH_BRAND_LOGO_URL: 'x' }), (error: unknown) => error instanceof ConfigError && error.problems.length === 2);
});

test('the contrast ratio is WCAG 2\'s: black on white 21:1, a colour on itself 1:1', () => {
  assert.equal(contrastRatio('#000000', '#ffffff'), 21);
  assert.equal(contrastRatio('#0b5cd5', '#0b5cd5'), 1);
  assert.ok(Math.abs(contrastRatio('#767676', '#ffffff') - 4.54) < 0.01, 'the well-known lightest grey that passes on white');
});

test('a brand name with punctuation is quoted in the default mail sender', () => {
  assert.equal(load({ LATCH_BRAND_NAME: 'Orbit, Inc.' }).mailFrom, '"Orbit, Inc." <no-reply@localhost>');
  assert.equal(load({ LATCH_BRAND_NAME: 'Orbit "Accounts"' }).mailFrom, '"Orbit \\"Accounts\\"" <no-reply@localhost>');
  assert.equal(load({ LATCH_BRAND_NAME: 'Orbit', LATCH_MAIL_FROM: 'Support <help@example.com>' }).mailFrom, 'Support <help@example.com>');
});
