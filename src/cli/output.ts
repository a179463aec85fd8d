/** CLI output: JSON for scripts (--json), aligned lines for people. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printFields(fields: Record<string, string | number | boolean | null | readonly string[]>): void {
  const width = Math.max(...Object.keys(fields).map((k) => k.length));
  for (const [key, value] of Object.entries(fields)) {
    const text = Array.isArray(value) ? value.join(', ') : String(value ?? '—');
    process.stdout.write(`${key.padEnd(width)}  ${text}\n`);
  }
}

export class UsageError extends Error {}
