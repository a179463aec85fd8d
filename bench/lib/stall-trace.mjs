/**
 * Preload for a Latch process under the bench: logs every event-loop stall of 3 ms or more (a 1 ms timer that
 * fired late) and every GC pause of 1 ms or more, with the time, to `<STALL_TRACE_DIR or the temp dir>/stalls-<pid>.log`.
 * For finding what a fixed-load p99 is made of:
 *   BENCH_SCENARIOS=a,d1 BENCH_WORKERS=0 BENCH_WRITE_REPORT=0 BENCH_LATCH_NODE_ARGS="--import $PWD/lib/stall-trace.mjs" node run.mjs
 * (the fixed-load lines of the bench's log give each run's end; runs last BENCH_DURATION_SECONDS).
 */
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const file = join(process.env.STALL_TRACE_DIR ?? tmpdir(), `stalls-${process.pid}.log`);
const lines = [];
const flush = () => {
  if (lines.length === 0) return;
  appendFileSync(file, `${lines.join('\n')}\n`);
  lines.length = 0;
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.duration >= 1) lines.push(`${new Date(performance.timeOrigin + entry.startTime).toISOString()} gc kind=${entry.detail?.kind} ${entry.duration.toFixed(2)}ms`);
  }
}).observe({ entryTypes: ['gc'] });
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  const late = now - last - 1;
  if (late >= 3) lines.push(`${new Date().toISOString()} stall ${late.toFixed(2)}ms`);
  last = now;
}, 1).unref();
setInterval(flush, 1000).unref();
process.on('exit', flush);
