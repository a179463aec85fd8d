/**
 * Work deferred to the end of the event loop's current turn and run together, once the turn's I/O callbacks
 * have run (its check phase: one setImmediate for all of it). Three things use it:
 * 1. the read of the embedded database's invalidation signal (file-signal.ts), once for every request read
 *    in the turn;
 * 2. the group commit (group-commit.ts), which commits the writes of those requests at once;
 * 3. the batched writing of responses (http/batched-writes.ts).
 *
 * The turn is "at its end" while the deferred work runs and until the continuations it resolved have run
 * (the microtask queue is empty). Meanwhile:
 * - a response that becomes ready (the answer to a request whose write was just committed) is already in a
 *   batch, and is written at once;
 * - a task queued (the write of a request that went on after the signal was read) runs in this same turn end.
 */

type Task = () => void;

let queue: Task[] = [];
let scheduled = false;
let atEnd = false;
let turnEnds = 0;

/**
 * Runs `task` at the end of the current turn, after the tasks queued before it. Queued while the turn is at
 * its end (by a task, or by a continuation a task resolved), it runs in that same turn end, once the tasks
 * before it and their continuations have run. A task must not throw.
 */
export function atTurnEnd(task: Task): void {
  queue.push(task);
  if (!scheduled && !atEnd) {
    scheduled = true;
    setImmediate(runQueued);
  }
}

/** True while the tasks of a turn's end run, and until the continuations they resolved have run. */
export function isAtTurnEnd(): boolean {
  return atEnd;
}

/** Which turn end this is (a number that changes from one turn end to the next): meaningful while isAtTurnEnd(). */
export function currentTurnEnd(): number {
  return turnEnds;
}

function runQueued(): void {
  scheduled = false;
  atEnd = true;
  turnEnds += 1;
  runTasks();
}

function runTasks(): void {
  const tasks = queue;
  queue = [];
  // A tick queued from a microtask runs once the microtask queue is empty, before the next I/O event or
  // immediate: there the turn's end either goes on with the tasks queued since, or ends.
  queueMicrotask(afterMicrotasks);
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

const continueOrLeave = () => {
  if (queue.length > 0) runTasks();
  else atEnd = false;
};
const afterMicrotasks = () => process.nextTick(continueOrLeave);
