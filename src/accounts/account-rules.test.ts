import assert from 'node:assert/strict';
import { test } from 'node:test';
import { avatarUrlProblem, nameProblem } from './account-rules.js';

test('nameProblem: a name that shows as nothing is empty; control characters and text-direction marks are refused', () => {
  const cases: [string, string | null][] = [
    ['Alice', null],
    ['Zoë Ångström', null],
    ['👩‍💻 Dev', null], // a zero-width joiner inside an emoji is part of a visible name
    ['', 'rules.name.empty'],
    ['   ', 'rules.name.empty'],
    ['\u200b', 'rules.name.empty'],
    [' \u200b\u2060\u00ad ', 'rules.name.empty'],
    ['N'.repeat(101), 'rules.name.tooLong'],
    ['Tab\there', 'rules.name.control'],
    ['C1\u0085control', 'rules.name.control'],
    ['Alice\u202eevil', 'rules.name.control'],
    ['Alice\u2066 x', 'rules.name.control'],
    ['Alice\u200f', 'rules.name.control'],
  ];
  for (const [name, key] of cases) assert.equal(nameProblem(name)?.key ?? null, key, JSON.stringify(name));
});

test('avatarUrlProblem: an absolute https:// URL as apps will receive it; http:// only on this machine', () => {
  const cases: [string, string | null][] = [
    ['https://x.example/a.png', null],
    ['HTTPS://x.example/a.png', null],
    ['https://x.example/a%20b.png?size=64', null],
    ['http://localhost:3000/avatars/1', null],
    ['http://127.0.0.1/a.png', null],
    ['http://[::1]:8080/a.png', null],
    ['http://x.example/a.png', 'account.error.urlNotHttps'],
    ['HTTP://x.example/a.png', 'account.error.urlNotHttps'],
    ['javascript:alert(1)', 'account.error.urlNotHttps'],
    ['data:image/png;base64,AAAA', 'account.error.urlNotHttps'],
    ['ftp://x.example/a.png', 'account.error.urlNotHttps'],
    ['https:x.example/a.png', 'account.error.urlNotAbsolute'],
    ['//x.example/a.png', 'account.error.urlNotAbsolute'],
    ['x.example/a.png', 'account.error.urlNotAbsolute'],
    ['https://', 'account.error.urlNotAbsolute'],
    ['https://user:pw@x.example/a.png', 'account.error.urlCredentials'],
    ['https://user@x.example/a.png', 'account.error.urlCredentials'],
    ['https://x.example/a b.png', 'account.error.urlCharacters'],
    ['https://x.example/a\n.png', 'account.error.urlCharacters'],
    ['https://x.example/a\u0001.png', 'account.error.urlCharacters'],
    ['https://x.example/bidi\u202e.png', 'account.error.urlCharacters'],
    [' https://x.example/a.png', 'account.error.urlCharacters'],
    [`https://x.example/${'a'.repeat(2000)}`, 'account.error.urlTooLong'],
  ];
  for (const [url, key] of cases) assert.equal(avatarUrlProblem(url)?.key ?? null, key, JSON.stringify(url));
});
