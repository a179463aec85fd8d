import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restartDelayMs } from './serve.js';

test('a dead worker is replaced at once, then with a doubling delay while they keep dying young, never above 30 s', () => {
  const table: [youngDeathsInARow: number, delayMs: number][] = [
    [1, 0],
    [2, 250],
    [3, 500],
    [4, 1000],
    [8, 16_000],
    [9, 30_000],
    [1000, 30_000],
  ];
  for (const [deaths, delay] of table) assert.equal(restartDelayMs(deaths), delay, `${deaths} deaths in a row`);
});
