/**
 * Requests to the revocation (RFC 7009) and introspection (RFC 7662) endpoints, every byte chosen by the test:
 * the form as given (pairs, so that a parameter can be sent twice), credentials only when asked for.
 */
import { readResponse, type RawResponse } from './code-fixtures.js';

export type FormPairs = Array<[string, string]>;

export interface TokenManagementRequest {
  headers?: Record<string, string>;
  /** Sent form-urlencoded, in this order. */
  form?: FormPairs | Record<string, string>;
  /** A body sent as it is (multipart, JSON), instead of `form`. */
  body?: RequestInit['body'];
}

async function post(baseUrl: string, path: string, init: TokenManagementRequest): Promise<RawResponse> {
  const headers = { ...init.headers };
  let body = init.body;
  if (init.form) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  return readResponse(await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body }));
}

export const postRevoke = (baseUrl: string, init: TokenManagementRequest) => post(baseUrl, '/oauth2/revoke', init);
export const postIntrospect = (baseUrl: string, init: TokenManagementRequest) => post(baseUrl, '/oauth2/introspect', init);

/** client_secret_post credentials as form pairs, to put beside `token`. */
export function postCredentials(client: { clientId: string; clientSecret: string }): FormPairs {
  return [
    ['client_id', client.clientId],
    ['client_secret', client.clientSecret],
  ];
}
