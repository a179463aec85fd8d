/** Conversions between domain values and the portable column types (docs/protocol-decisions.md, "Storage conventions"). */

export function toEpochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/**
 * An expiry in whole seconds, rounded up: rounding down would cut up to a second off every lifetime, so a
 * code with a 1-second lifetime issued late in a second would expire almost at once. A lifetime is therefore
 * at least the configured one and less than a second longer.
 */
export function toExpiryEpochSeconds(date: Date): number {
  return Math.ceil(date.getTime() / 1000);
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
