import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { atTurnEnd, currentTurnEnd, isAtTurnEnd } from './turn-end.js';

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('turn end', () => {
  test('tasks queued in one turn run together after its callbacks, in the order queued', async () => {
    const marks: string[] = [];
    await new Promise<void>((resolve) => {
      setImmediate(() => marks.push('immediate queued before'));
      atTurnEnd(() => marks.push(`first ${isAtTurnEnd()}`));
      atTurnEnd(() => marks.push(`second ${isAtTurnEnd()}`));
      setImmediate(() => {
        marks.push('immediate queued after');
        resolve();
      });
      marks.push(`still in the callback ${isAtTurnEnd()}`);
    });
    assert.deepEqual(marks, ['still in the callback false', 'immediate queued before', 'first true', 'second true', 'immediate queued after']);
  });

  test('the turn stays at its end until the continuations its tasks resolved have run, and no longer', async () => {
    const seen: boolean[] = [];
    await new Promise<void>((resolve) => atTurnEnd(resolve));
    seen.push(isAtTurnEnd()); // a continuation of a task
    await Promise.resolve();
    seen.push(isAtTurnEnd()); // a continuation of that continuation
    await nextTurn();
    seen.push(isAtTurnEnd());
    assert.deepEqual(seen, [true, true, false]);
  });

  test('a task queued at the turn end runs in that turn end, after the tasks before it and their continuations', async () => {
    const marks: string[] = [];
    const turnEnds: number[] = [];
    await new Promise<void>((resolve) => {
      atTurnEnd(() => {
        turnEnds.push(currentTurnEnd());
        setImmediate(() => marks.push('immediate of the next turn'));
        atTurnEnd(() => {
          marks.push(`queued by a task, at the end: ${isAtTurnEnd()}`);
          turnEnds.push(currentTurnEnd());
        });
        void Promise.resolve().then(() => {
          marks.push('continuation of the first task');
          atTurnEnd(() => {
            marks.push('queued by a continuation');
            turnEnds.push(currentTurnEnd());
            resolve();
          });
        });
      });
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(marks, [
      'continuation of the first task',
      'queued by a task, at the end: true',
      'queued by a continuation',
      'immediate of the next turn',
    ]);
    assert.equal(new Set(turnEnds).size, 1, 'one turn end');
  });

  test('each turn end has a number of its own', async () => {
    const first = await new Promise<number>((resolve) => atTurnEnd(() => resolve(currentTurnEnd())));
    await nextTurn();
    const second = await new Promise<number>((resolve) => atTurnEnd(() => resolve(currentTurnEnd())));
    assert.notEqual(first, second);
  });
});
