/** Small statistics helpers for the bench's repeated runs. */
import { readFileSync } from 'node:fs';

export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function summarize(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), runs: finite.length };
}

/** Busy and total CPU time of the whole machine so far, in ms (from /proc/stat), to see who else used it. */
export function machineCpuMilliseconds() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = ticks[3] + (ticks[4] ?? 0);
  const total = ticks.slice(0, 8).reduce((sum, t) => sum + t, 0);
  return { busy: (total - idle) * 10, total: total * 10 };
}
