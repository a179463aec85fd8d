import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { atTurnEnd, isAtTurnEnd } from './turn-end.js';

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

  test('a task queued by a task runs in the next turn', async () => {
    const marks: string[] = [];
    await new Promise<void>((resolve) => {
      atTurnEnd(() => {
        setImmediate(() => marks.push('immediate of the next turn'));
        atTurnEnd(() => {
          marks.push('queued by a task');
          resolve();
        });
      });
    });
    assert.deepEqual(marks, ['immediate of the next turn', 'queued by a task']);
  });
});
