/**
 * The file behind the embedded database's invalidation signal (file-signal.ts, invalidation-signal.ts): eight
 * bytes beside the database (`<database>-changes`), rewritten with fresh random bytes by every write that
 * could change a cached read (cached-storage.ts lists them). Every process on the same file (`latch serve
 * --workers`, the CLI) sees a new value with one pread; no value ever comes back, so any difference means
 * "changed". A torn read (a writer half-way) also reads as a change, which only costs a cache miss.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { randomFillSync } from 'node:crypto';

export class ChangeSignal {
  private readonly buffer = Buffer.alloc(8);
  private fd: number | undefined;

  constructor(readonly path: string) {
    closeSync(openSync(path, 'a')); // creates the file when missing, leaves it alone otherwise
    this.fd = openSync(path, 'r+');
    // A new file gets a first value, so that an empty read never stands for a state.
    if (readSync(this.fd, this.buffer, 0, 8, 0) < 8) this.bump();
  }

  /** The current value (a number made of the eight bytes; only equality matters). */
  read(): bigint {
    if (this.fd === undefined) throw new Error('The change signal is closed');
    readSync(this.fd, this.buffer, 0, 8, 0);
    return this.buffer.readBigUInt64LE(0);
  }

  /** Tells every process that what they cached may be stale. */
  bump(): void {
    if (this.fd === undefined) throw new Error('The change signal is closed');
    writeSync(this.fd, randomFillSync(Buffer.alloc(8)), 0, 8, 0);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
