/** The Server-Timing header's value (W3C Server Timing), as a table. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestScope } from './request-scope.js';
import { endPhase, formatServerTiming, PhaseTimings, startPhase } from './server-timing.js';

test('the header names each phase that ran, in milliseconds to 0.01, and always the total', () => {
  const cases: Array<{ phases: Array<['db' | 'sign', number]>; total: number; header: string }> = [
    { phases: [], total: 1.234, header: 'total;dur=1.23' },
    { phases: [['db', 0.4]], total: 2, header: 'db;dur=0.40, total;dur=2.00' },
    { phases: [['db', 0.25], ['db', 0.25], ['sign', 1.1049]], total: 3.456, header: 'db;dur=0.50, sign;dur=1.10, total;dur=3.46' },
    // A phase that ran but took no measurable time is still named.
    { phases: [['sign', 0]], total: 0.5, header: 'sign;dur=0.00, total;dur=0.50' },
  ];
  for (const { phases, total, header } of cases) {
    const timings = new PhaseTimings();
    for (const [phase, ms] of phases) timings.add(phase, ms);
    assert.equal(formatServerTiming(timings, total), header);
  }
});

test('a phase is timed only inside a request scope with timings; elsewhere nothing is measured', async () => {
  assert.equal(startPhase(), undefined);
  endPhase(undefined, 'sign'); // no scope: a no-op
  const timings = new PhaseTimings();
  await requestScope.run({ timings }, async () => {
    const clock = startPhase();
    assert.ok(clock);
    await new Promise((resolve) => setTimeout(resolve, 5));
    endPhase(clock, 'sign');
  });
  assert.ok(timings.has('sign') && timings.sign >= 4, String(timings.sign));
  assert.equal(timings.has('db'), false);
  await requestScope.run({}, async () => assert.equal(startPhase(), undefined));
});
