/**
 * When the cached reads read the embedded database's invalidation signal (cached-reads.ts over
 * sqlite/file-signal.ts): once per turn, at its end, after every request of the turn was read. The signal is a
 * real file; a second ChangeSignal on it stands for another process. Then entry lifetimes, as PostgreSQL's
 * signal asks for them (postgres/notify-signal.ts), on a clock of the test's own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CachedReads, readThrough } from './cached-reads.js';
import type { InvalidationSignal } from './invalidation-signal.js';
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
    reads.users.set('7', { id: 7 } as never, signal, reads.readStarts());
    assert.ok(reads.users.get('7', signal));
    otherProcess.bump();
    const next = await inCallback(() => reads.signal());
    assert.equal(reads.users.get('7', next), undefined);
  });
});

/** A signal whose changes are all heard, with an entry lifetime on a clock of the test's own (as PostgreSQL's has). */
function signalWithLifetime(maxAgeMs: number) {
  const clock = { now: 10_000 };
  let generation = 1n;
  const signal: InvalidationSignal = {
    entryLifetime: { maxAgeMs, clock: () => clock.now },
    current: () => generation,
    changed: () => {
      generation += 1n;
    },
    close: () => {},
  };
  return { signal, clock };
}

describe('cached reads: an entry lifetime (the staleness bound where a change can go unheard)', () => {
  test('each entry is used until the bound after its own read began, then read again, with no change signalled', async () => {
    const { signal, clock } = signalWithLifetime(1000);
    const reads = new CachedReads(signal);
    let databaseReads = 0;
    const read = (key: string, tookMs = 0) =>
      readThrough(reads, reads.users, key, async () => {
        databaseReads += 1;
        // A read that takes a while: what it answers may change meanwhile, so its lifetime counts from its start.
        clock.now += tookMs;
        return { id: Number(key) } as never;
      });
    // [ms since the start, key, database reads expected after it]
    const steps: Array<[number, string, number]> = [
      [0, '1', 1], // read, cached
      [400, '2', 2], // another entry, read later: its own lifetime
      [999, '1', 2], // within 1's bound: from memory
      [1000, '1', 3], // 1's bound reached: read again, cached anew
      [1300, '2', 3], // 2 read at 400: still within its bound (the entries do not age together)
      [1400, '2', 4], // 2's bound reached
      [1999, '1', 4], // 1's new entry, read at 1000
    ];
    const start = clock.now;
    for (const [at, key, expected] of steps) {
      clock.now = start + at;
      await read(key);
      assert.equal(databaseReads, expected, `at ${at} ms, key ${key}`);
    }
    clock.now = start + 5000;
    await read('3', 300); // began at 5000, answered at 5300
    clock.now = start + 5999;
    await read('3');
    assert.equal(databaseReads, 5, 'within the bound from the read\'s start: from memory');
    clock.now = start + 6000;
    await read('3');
    assert.equal(databaseReads, 6, 'the bound counts from when the read began, not from its answer');
    clock.now = start + 6500;
    await read('3');
    assert.equal(databaseReads, 6);
    // A clock that went back: the entry's age is unknown, so it is read again rather than trusted for longer.
    clock.now = start + 100;
    await read('3');
    assert.equal(databaseReads, 7, 'a clock set back does not stretch the bound');
  });

  test('a change signalled drops every entry, however young', async () => {
    const { signal } = signalWithLifetime(60_000);
    const reads = new CachedReads(signal);
    const current = await reads.signal();
    reads.clients.set('c', { clientId: 'c' } as never, current, reads.readStarts());
    assert.ok(reads.clients.get('c', await reads.signal()));
    signal.changed();
    assert.equal(reads.clients.get('c', await reads.signal()), undefined);
  });

  test('without a lifetime (the embedded database, whose every change is heard) an entry never ages', async () => {
    const signal: InvalidationSignal = { current: () => 1n, changed: () => {}, close: () => {} };
    const reads = new CachedReads(signal);
    const current = await reads.signal();
    reads.users.set('7', { id: 7 } as never, current, 0);
    assert.equal(reads.outlived(0), false);
    assert.ok(reads.users.get('7', current));
  });
});
