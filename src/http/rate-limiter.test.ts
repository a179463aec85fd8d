import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryAttemptCounter } from '../accounts/sign-in-throttle.js';
import { RateLimiter } from './rate-limiter.js';

const WINDOW_START = Date.UTC(2030, 0, 1, 12, 0, 0); // a multiple of 60 s: a window starts here

describe('RateLimiter', () => {
  // [what, limit, window seconds, hits as ms after WINDOW_START, the answer of each hit]
  const cases: Array<[string, number, number, number[], number[]]> = [
    ['within the limit every hit passes', 3, 60, [0, 1, 2], [0, 0, 0]],
    ['the hit past the limit waits for the end of the window, rounded up', 3, 60, [0, 1, 2, 30_500], [0, 0, 0, 30]],
    ['a refused hit is not counted: the next window starts from zero', 2, 60, [0, 1, 2, 3, 60_000, 60_001, 60_002], [0, 0, 60, 60, 0, 0, 60]],
    ['the window is fixed, aligned to the epoch (not to the first hit)', 1, 60, [59_000, 59_500, 60_000], [0, 1, 0]],
    ['at least one second to wait, even in the window\'s last millisecond', 1, 60, [0, 59_999], [0, 1]],
    ['limit 0 turns the limit off', 0, 60, [0, 1, 2, 3], [0, 0, 0, 0]],
    ['a one-second window', 2, 1, [0, 10, 20, 1000], [0, 0, 1, 0]],
  ];
  for (const [what, limit, windowSeconds, hits, answers] of cases) {
    test(what, () => {
      const limiter = new RateLimiter({ name: 't', limit, windowSeconds });
      assert.deepEqual(
        hits.map((at) => limiter.hit('k', WINDOW_START + at)),
        answers,
      );
    });
  }

  test('keys are counted apart; wait() tells without counting', () => {
    const limiter = new RateLimiter({ name: 't', limit: 1, windowSeconds: 60 });
    assert.equal(limiter.wait('a', WINDOW_START), 0);
    assert.equal(limiter.hit('a', WINDOW_START), 0);
    assert.equal(limiter.wait('a', WINDOW_START + 1000), 59);
    assert.equal(limiter.wait('a', WINDOW_START + 1000), 59, 'still 59: wait() counted nothing');
    assert.equal(limiter.hit('b', WINDOW_START + 1000), 0);
    assert.equal(limiter.wait('a', WINDOW_START + 60_000), 0, 'a new window');
  });

  test('mayRefuse: false until some key reaches its limit, true until that window ends (the hot path skips the lookup before)', async () => {
    const limiter = new RateLimiter({ name: 't', limit: 2, windowSeconds: 60 });
    assert.equal(limiter.mayRefuse(WINDOW_START), false);
    limiter.hit('a', WINDOW_START);
    assert.equal(limiter.mayRefuse(WINDOW_START + 1), false);
    limiter.hit('a', WINDOW_START + 2);
    assert.equal(limiter.mayRefuse(WINDOW_START + 3), true);
    assert.equal(limiter.wait('a', WINDOW_START + 3), 60);
    assert.equal(limiter.mayRefuse(WINDOW_START + 60_000), false, 'the next window');
    // A key filled by other processes' counts (the shared total at a sync) counts too.
    const shared = createMemoryAttemptCounter();
    const now = Date.now();
    const other = new RateLimiter({ name: 't', limit: 2, windowSeconds: 60 }, shared);
    await shared.increment(`rate:t:k:${Math.floor(now / 60_000)}`, 60, new Date(now), 5);
    other.hit('k', now);
    assert.equal(other.mayRefuse(now), false);
    await other.sync(new Date(now));
    assert.equal(other.mayRefuse(now), true);
  });

  test('memory is bounded: past the most keys, ended windows go first, then the oldest key', () => {
    const limiter = new RateLimiter({ name: 't', limit: 5, windowSeconds: 60 }, undefined, 3);
    for (const key of ['a', 'b', 'c']) limiter.hit(key, WINDOW_START);
    limiter.hit('d', WINDOW_START + 60_000);
    assert.equal(limiter.size, 1, 'the three of the ended window were swept');
    for (const key of ['e', 'f', 'g']) limiter.hit(key, WINDOW_START + 60_000);
    assert.equal(limiter.size, 3);
    limiter.sweep(WINDOW_START + 120_000);
    assert.equal(limiter.size, 0);
  });

  test('two processes sharing a counter allow the limit together once they have synced', async () => {
    const shared = createMemoryAttemptCounter();
    const one = new RateLimiter({ name: 't', limit: 10, windowSeconds: 60 }, shared);
    const two = new RateLimiter({ name: 't', limit: 10, windowSeconds: 60 }, shared);
    const now = Date.now();
    for (let i = 0; i < 6; i++) assert.equal(one.hit('k', now), 0);
    await one.sync();
    for (let i = 0; i < 4; i++) assert.equal(two.hit('k', now), 0, `hit ${i + 1} of the second process`);
    // The second process learns the first one's six from the shared total at its sync.
    await two.sync();
    assert.ok(two.hit('k', now) > 0, 'the eleventh hit across both is refused');
    // The first process learns of the second one's hits when it syncs a hit of its own: until then it may let
    // through what it counts between two syncs (the approximation the README states).
    assert.equal(one.hit('k', now), 0);
    await one.sync();
    assert.ok(one.hit('k', now) > 0, 'refused once the shared total came back');
  });

  test('without a shared counter, sync does nothing', async () => {
    const limiter = new RateLimiter({ name: 't', limit: 1, windowSeconds: 60 });
    limiter.hit('k', WINDOW_START);
    await limiter.sync();
    assert.ok(limiter.hit('k', WINDOW_START) > 0);
  });
});
