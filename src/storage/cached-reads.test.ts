/**
 * When the cached reads read the embedded database's invalidation signal (cached-reads.ts over
 * sqlite/file-signal.ts): once per turn, at its end, after every request of the turn was read. The signal is a
 * real file; a second ChangeSignal on it stands for another process.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CachedReads } from './cached-reads.js';
import { ChangeSignal } from './sqlite/change-signal.js';
import { FileInvalidationSignal } from './sqlite/file-signal.js';
import { isAtTurnEnd } from './sqlite/turn-end.js';

class CountedSignal extends ChangeSignal {
  reads = 0;
  override read(): bigint {
    this.reads += 1;
    return super.read();
  }
}

/** Runs `fn` in an I/O-like callback of a turn of its own (a timer's), not at a turn end. */
const inCallback = <T>(fn: () => T) => new Promise<T>((resolve) => setTimeout(() => resolve(fn()), 1));

describe('cached reads: the change signal', () => {
  let dir: string;
  let path: string;
  let own: CountedSignal;
  let otherProcess: ChangeSignal;
  let reads: CachedReads;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'latch-cached-reads-'));
    path = join(dir, 'db-changes');
    own = new CountedSignal(path);
    otherProcess = new ChangeSignal(path);
    reads = new CachedReads(new FileInvalidationSignal(own));
  });
  after(() => {
    own.close();
    otherProcess.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('is read once for all the requests of a turn, at its end', async () => {
    const before = own.reads;
    const signals = await inCallback(() => {
      assert.equal(isAtTurnEnd(), false);
      return [reads.signal(), reads.signal(), reads.signal()];
    });
    assert.ok(signals.every((signal) => signal instanceof Promise), 'during the turn, the signal is not read yet');
    const values = await Promise.all(signals);
    assert.equal(own.reads - before, 1);
    assert.equal(new Set(values).size, 1);
  });

  test('a change signalled during the turn, before its end, is seen by the requests of that turn', async () => {
    const { pending, changedTo } = await inCallback(() => {
      const pending = reads.signal();
      // Another process commits and signals after this request was read, in the same turn.
      otherProcess.bump();
      return { pending, changedTo: otherProcess.read() };
    });
    assert.equal(await pending, changedTo);
  });

  test('what a turn end read is not used by the next turn', async () => {
    const first = await inCallback(() => reads.signal());
    otherProcess.bump();
    const second = await inCallback(() => reads.signal());
    assert.notEqual(second, first);
    assert.equal(second, otherProcess.read());
  });

  test('an entry cached under the signal of one turn is dropped once another process signals a change', async () => {
    const signal = await inCallback(() => reads.signal());
    reads.users.set('7', { id: 7 } as never, signal);
    assert.ok(reads.users.get('7', signal));
    otherProcess.bump();
    const next = await inCallback(() => reads.signal());
    assert.equal(reads.users.get('7', next), undefined);
  });
});
