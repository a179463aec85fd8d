/**
 * Work deferred to the end of the event loop's current turn and run together: once the I/O callbacks of the
 * turn have run (its check phase, one setImmediate for all of it). Two things use it, in this order: the
 * group commit of the embedded database (storage/sqlite-fast-path.ts), which commits the writes of every
 * request read in the turn at once, and the batched writing of responses (http/batched-writes.ts).
 *
 * While the deferred work runs, and until the promise continuations it resolves have run (the microtask queue
 * is empty), the turn is "at its end": a response that becomes ready then, such as the answer to a request
 * whose write was just committed, is already in a batch and is written at once.
 */

type Task = () => void;

let queue: Task[] = [];
let scheduled = false;
let atEnd = false;

/** Runs `task` at the end of the current turn, after the tasks queued before it. A task must not throw. */
export function atTurnEnd(task: Task): void {
  queue.push(task);
  if (!scheduled) {
    scheduled = true;
    setImmediate(runQueued);
  }
}

/** True while the tasks of a turn's end run, and until the continuations they resolved have run. */
export function isAtTurnEnd(): boolean {
  return atEnd;
}

function runQueued(): void {
  const tasks = queue;
  queue = [];
  scheduled = false;
  atEnd = true;
  // A tick queued from a microtask runs once the microtask queue is empty, before the next I/O event or
  // immediate: that is where this turn's end ends.
  queueMicrotask(leaveAfterMicrotasks);
  let failure: { error: unknown } | undefined;
  for (const task of tasks) {
    try {
      task();
    } catch (error) {
      // The other tasks still run; the first failure then surfaces as setImmediate's would.
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}

const leave = () => {
  atEnd = false;
};
const leaveAfterMicrotasks = () => process.nextTick(leave);
