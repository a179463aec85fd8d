/**
 * The embedded database's invalidation signal (invalidation-signal.ts): the counter file of change-signal.ts,
 * read once per turn of the event loop.
 *
 * Why once per turn, at its end:
 * 1. A change committed and signalled before a request arrived must be seen by that request.
 * 2. Every request handled in a turn was read from its socket before the turn's end.
 * 3. So one read of the file at the turn's end comes after all of them, and serves them all.
 * Asked during the turn (in an I/O callback, where a later callback of the same turn may read a request that
 * arrived after any read made now), current() waits for the turn's end. One pread per request would cost as
 * much as the rest of a cached read (BENCHMARKS.md, "Cached reads with a change signal").
 */
import type { InvalidationSignal } from '../invalidation-signal.js';
import { ChangeSignal } from './change-signal.js';
import { atTurnEnd, currentTurnEnd, isAtTurnEnd } from './turn-end.js';

export class FileInvalidationSignal implements InvalidationSignal {
  private turnValue: { value: bigint; turnEnd: number } | undefined;
  private atTurnEnd: Promise<bigint> | undefined;

  constructor(private readonly file: ChangeSignal) {}

  /** The signal of the database at `databasePath` (the file `<database>-changes` beside it). */
  static beside(databasePath: string): FileInvalidationSignal {
    return new FileInvalidationSignal(new ChangeSignal(`${databasePath}-changes`));
  }

  current(): bigint | Promise<bigint> {
    if (isAtTurnEnd()) {
      const turnEnd = currentTurnEnd();
      if (this.turnValue?.turnEnd !== turnEnd) this.turnValue = { value: this.file.read(), turnEnd };
      return this.turnValue.value;
    }
    this.atTurnEnd ??= new Promise<bigint>((resolve) =>
      atTurnEnd(() => {
        this.atTurnEnd = undefined;
        resolve(this.current());
      }),
    );
    return this.atTurnEnd;
  }

  changed(): void {
    this.file.bump();
    // What this turn read is stale now, for this process too.
    this.turnValue = undefined;
  }

  close(): void {
    this.file.close();
  }
}
