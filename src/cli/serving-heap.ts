/**
 * V8's heap settings for a serving process, set before it serves.
 *
 * Allocation-site pretenuring off. V8 starts allocating the objects of an object or array literal straight in
 * its old generation once most of them outlived a young collection. Under a steady load on PostgreSQL some of a
 * request's literals get there (those alive across the database round trip when a scavenge comes): each later
 * request's copy then lives in the old generation, where the young collector takes it as a root until the next
 * full collection, and keeps alive, and promotes, the young objects it points to long after the request ended.
 * Measured at a fixed 1,822 code exchanges/s on PostgreSQL: 0.3–2.5 MB promoted per scavenge (every ~125 ms)
 * with pretenuring, 0.15 MB without, and scavenges of 3–6 ms against ~1 ms (BENCHMARKS.md, "Young-generation
 * promotion on PostgreSQL"). A request's objects die young and Latch's long-lived state (caches, pools) is
 * allocated once, so nothing here gains from pretenuring; SQLite's figures do not move.
 *
 * The flag is read when V8 decides, so setting it here, before the first request, is enough. An operator who
 * starts node with `--allocation-site-pretenuring` keeps it.
 */
import { setFlagsFromString } from 'node:v8';

/** Whether node was started with pretenuring on or off explicitly (V8 takes `-` and `_` alike in flag names). */
export function pretenuringChosenAtStart(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => /^--(no-?)?allocation[-_]site[-_]pretenuring$/.test(arg));
}

export function tuneHeapForServing(execArgv: readonly string[] = process.execArgv): void {
  if (!pretenuringChosenAtStart(execArgv)) setFlagsFromString('--no-allocation-site-pretenuring');
}
