import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientNameProblem } from './client-registration.js';

test('clientNameProblem: the names people read on the consent page', () => {
  const cases: Array<[string, string | null]> = [
    ['Example App', null],
    ['Ünïcode 日本 مرحبا 🚀', null],
    ['N'.repeat(100), null],
    ['', 'rules.clientName.empty'],
    ['   ', 'rules.clientName.empty'],
    // Only characters that show as nothing (zero-width space, word joiner, soft hyphen): empty.
    ['\u200b', 'rules.clientName.empty'],
    [' \u200b\u2060\u00ad ', 'rules.clientName.empty'],
    ['N'.repeat(101), 'rules.clientName.tooLong'],
    // Text-direction controls (Unicode Bidi_Control) and control characters (Cc).
    ['Example \u202eknaB', 'rules.clientName.invisibleCharacters'],
    ['Example\u2066 App', 'rules.clientName.invisibleCharacters'],
    ['Example\u200f App', 'rules.clientName.invisibleCharacters'],
    ['Example\u061c App', 'rules.clientName.invisibleCharacters'],
    ['Tab\there', 'rules.clientName.invisibleCharacters'],
    ['Line\nBreak', 'rules.clientName.invisibleCharacters'],
    ['C1\u0085control', 'rules.clientName.invisibleCharacters'],
  ];
  for (const [name, key] of cases) assert.equal(clientNameProblem(name)?.key ?? null, key, JSON.stringify(name));
});
