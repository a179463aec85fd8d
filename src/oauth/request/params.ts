/**
 * Reading request parameters: each OAuth parameter at most once (RFC 6749 §3.1, §3.2: "Request and response
 * parameters MUST NOT be included more than once"), with a bound on length, and empty values treated as absent
 * (RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted").
 */
import { InvalidRequest, type OAuthErrorOptions } from '../../errors.js';
import type { RawParams } from '../../http/form-body.js';

export const MAX_PARAMETER_LENGTH = 4096;

export function readParam(
  params: RawParams,
  name: string,
  options: OAuthErrorOptions & { maxLength?: number } = {},
): string | undefined {
  const value = params[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw new InvalidRequest(`${name} was sent more than once; send it exactly once`, options);
    return readSingle(name, value[0], options);
  }
  return readSingle(name, value, options);
}

function readSingle(name: string, value: string | undefined, options: OAuthErrorOptions & { maxLength?: number }): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new InvalidRequest(`${name} must be a string`, options);
  const maxLength = options.maxLength ?? MAX_PARAMETER_LENGTH;
  if (value.length > maxLength) throw new InvalidRequest(`${name} is longer than ${maxLength} characters`, options);
  return value;
}

export function requireParam(params: RawParams, name: string, options: OAuthErrorOptions & { maxLength?: number } = {}): string {
  const value = readParam(params, name, options);
  if (value === undefined) throw new InvalidRequest(`${name} is required`, options);
  return value;
}

/** Any parameter sent more than once, checked up front so that the error names it whatever the order of checks. */
export function findDuplicatedParam(params: RawParams, repeatable: readonly string[] = []): string | undefined {
  return Object.keys(params).find((name) => Array.isArray(params[name]) && (params[name] as string[]).length > 1 && !repeatable.includes(name));
}
