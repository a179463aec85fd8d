/** CLI output: JSON for scripts (--json), aligned lines for people. */
import type { TextOutput } from './terminal.js';

export function printJson(out: TextOutput, value: unknown): void {
  out.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printFields(out: TextOutput, fields: Record<string, string | number | boolean | null | readonly string[]>): void {
  const width = Math.max(...Object.keys(fields).map((k) => k.length));
  for (const [key, value] of Object.entries(fields)) {
    const text = Array.isArray(value) ? value.join(', ') : String(value ?? '—');
    out.write(`${key.padEnd(width)}  ${text}\n`);
  }
}

export class UsageError extends Error {}
