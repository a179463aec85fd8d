import { PageError } from '../errors.js';

/**
 * Reading posted form fields: a string, or '' when missing. A field sent twice (an array from the form parser) is
 * a 400 that says so: no page of Latch's has two fields of one name, and reading it as missing told the person that
 * a field they had filled in was empty.
 */
export function formField(body: unknown, name: string, maxLength = 10_000): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  if (typeof value === 'string') return value.slice(0, maxLength);
  if (Array.isArray(value)) throw new PageError(400, `The form field ${name.slice(0, 64)} was sent more than once. Reload the page and send the form again.`);
  return '';
}

/**
 * The notice `?notice=` names, when it is one of the page's own (`notices`, its texts by key): the page shows its
 * fixed text, and nothing the URL says is shown.
 */
export function noticeFor<Key extends string>(query: unknown, notices: Readonly<Record<Key, string>>): Key | undefined {
  const key = (query as Record<string, unknown> | undefined)?.notice;
  return typeof key === 'string' && Object.hasOwn(notices, key) ? (key as Key) : undefined;
}
