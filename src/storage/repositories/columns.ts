/** Conversions between domain values and the portable column types (STYLE.md §5). */

export function toEpochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

export function fromEpochSeconds(seconds: number | string): Date {
  return new Date(Number(seconds) * 1000);
}

export function fromNullableEpochSeconds(seconds: number | string | null): Date | null {
  return seconds === null ? null : fromEpochSeconds(seconds);
}

export function toNullableEpochSeconds(date: Date | null | undefined): number | null {
  return date ? toEpochSeconds(date) : null;
}

export function toScopeText(scope: readonly string[]): string {
  return scope.join(' ');
}

export function fromScopeText(text: string): string[] {
  return text === '' ? [] : text.split(' ');
}
