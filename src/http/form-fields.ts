/** Reading posted form fields: a string, or '' when missing or not a single string (a repeated field is an array). */
export function formField(body: unknown, name: string, maxLength = 10_000): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.slice(0, maxLength) : '';
}

/** A fixed notice chosen by a key from the query string: nothing the URL says is shown as text. */
export function noticeFor(query: unknown, notices: Record<string, string>): string | undefined {
  const key = (query as Record<string, unknown> | undefined)?.notice;
  return typeof key === 'string' && Object.hasOwn(notices, key) ? notices[key] : undefined;
}
