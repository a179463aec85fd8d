import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkRefreshLifetimes, refreshLifetimes } from './refresh-lifetimes.js';

const config = { refreshTokenIdleSeconds: 30 * 86400, refreshTokenMaxSeconds: 365 * 86400 };

test('checkRefreshLifetimes: the bounds of the environment variables, and idle not beyond absolute', () => {
  const cases: Array<[idle: number | null, max: number | null, problem: RegExp | null]> = [
    [null, null, null],
    [60, null, null],
    [3600, 86400, null],
    [86400, 86400, null],
    [59, null, /idle lifetime must be a whole number of seconds from 60/],
    [null, 59, /absolute lifetime must be a whole number of seconds from 60/],
    [1.5, null, /idle lifetime must be a whole number/],
    [5 * 365 * 86400 + 1, null, /idle lifetime/],
    [null, 10 * 365 * 86400 + 1, /absolute lifetime/],
    [7200, 3600, /must not be longer than its absolute lifetime/],
  ];
  for (const [idle, max, problem] of cases) {
    const problems = checkRefreshLifetimes({ refreshTokenIdleSeconds: idle, refreshTokenMaxSeconds: max });
    if (problem === null) assert.deepEqual(problems, [], `${idle}/${max}`);
    else assert.ok(problems.some((p) => problem.test(p)), `${idle}/${max}: ${problems.join('; ')}`);
  }
});

test('refreshLifetimes: a client’s own lifetimes, else the deployment’s', () => {
  assert.deepEqual(refreshLifetimes({ refreshTokenIdleSeconds: null, refreshTokenMaxSeconds: null }, config), { idleSeconds: 30 * 86400, maxSeconds: 365 * 86400 });
  assert.deepEqual(refreshLifetimes({ refreshTokenIdleSeconds: 600, refreshTokenMaxSeconds: null }, config), { idleSeconds: 600, maxSeconds: 365 * 86400 });
  assert.deepEqual(refreshLifetimes({ refreshTokenIdleSeconds: null, refreshTokenMaxSeconds: 3600 }, config), { idleSeconds: 30 * 86400, maxSeconds: 3600 });
});
