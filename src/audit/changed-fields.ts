/**
 * Which settings a change touched, for an event's details (`client.updated`: `changed`): the names of the
 * patch's fields whose value differs from before, in snake_case as the rest of the event. Names only, never
 * the values: a setting may one day hold something that must not be recorded.
 */
export function changedFields<T extends object>(before: T, patch: Partial<T>): string[] {
  return Object.entries(patch)
    .filter(([field, value]) => value !== undefined && JSON.stringify(value) !== JSON.stringify(before[field as keyof T]))
    .map(([field]) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));
}
