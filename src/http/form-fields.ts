/** Reading posted form fields: a string, or '' when missing or not a single string (a repeated field is an array). */
export function formField(body: unknown, name: string, maxLength = 10_000): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.slice(0, maxLength) : '';
}

/**
 * The notice `?notice=` names, when it is one of the page's own (`notices`, its texts by key): the page shows its
 * fixed text, and nothing the URL says is shown.
 */
export function noticeFor<Key extends string>(query: unknown, notices: Readonly<Record<Key, string>>): Key | undefined {
  const key = (query as Record<string, unknown> | undefined)?.notice;
  return typeof key === 'string' && Object.hasOwn(notices, key) ? (key as Key) : undefined;
}
