/**
 * How `latch doctor` orders, prints and counts its findings, and its exit status: 1 with any problem, warnings
 * not counted.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exitStatusOf, findingsAsJson, formatFindings, orderFindings, wrap, type Finding } from './finding.js';

const ok: Finding = { check: 'a', level: 'ok', title: 'All well', fix: null };
const note: Finding = { check: 'b', level: 'note', title: 'Worth knowing', fix: 'Maybe later.' };
const warning: Finding = { check: 'c', level: 'warning', title: 'Degrades', fix: 'Fix soon.' };
const problem: Finding = { check: 'd', level: 'problem', title: 'Broken', fix: 'Fix now.' };

describe('exitStatusOf', () => {
  const rows: [string, Finding[], 0 | 1][] = [
    ['nothing found', [], 0],
    ['ok and notes', [ok, note], 0],
    ['warnings do not fail it', [ok, warning, warning], 0],
    ['one problem does', [ok, note, warning, problem], 1],
  ];
  for (const [situation, findings, status] of rows) test(situation, () => assert.equal(exitStatusOf(findings), status));
});

describe('formatting', () => {
  test('most severe first, the checks keeping their order within a level', () => {
    const second: Finding = { ...warning, check: 'c2' };
    assert.deepEqual(orderFindings([ok, warning, note, problem, second]).map((f) => f.check), ['d', 'c', 'c2', 'b', 'a']);
  });
  test('each finding on its own line with its level, the fix beneath, and a summary with the exit status', () => {
    const text = formatFindings([ok, problem, note]);
    assert.equal(
      text,
      ['problem  Broken', '         fix: Fix now.', 'note     Worth knowing', '         fix: Maybe later.', 'ok       All well', '', '1 problem, 0 warnings, 1 note, 1 ok; exit status 1', ''].join('\n'),
    );
  });
  test('long titles wrap at spaces under the title', () => {
    const text = formatFindings([{ check: 'x', level: 'warning', title: 'word '.repeat(40).trim(), fix: null }]);
    const lines = text.split('\n');
    assert.ok(lines[0]!.startsWith('warning  word'));
    assert.ok(lines[1]!.startsWith('         word'));
    assert.ok(lines.every((line) => line.length <= 110));
  });
  test('wrap keeps a word longer than the width whole', () => {
    assert.deepEqual(wrap('a verylongword b', 5), ['a', 'verylongword', 'b']);
  });
  test('JSON: the findings ordered, counts per level, the exit status', () => {
    assert.deepEqual(findingsAsJson([ok, warning]), { findings: [warning, ok], counts: { problem: 0, warning: 1, note: 0, ok: 1 }, exit_status: 0 });
  });
});
