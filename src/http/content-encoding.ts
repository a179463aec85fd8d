/**
 * Request bodies with a Content-Encoding (RFC 9110 §8.4). Latch decodes none: its bodies are small forms and JSON
 * documents. Before, the header was ignored and the bytes read as they came: a gzipped token request was answered
 * "grant_type is required", and a plain body labelled `br` was processed as if nothing were said about it. Such a
 * request is now refused before its body is read, with 415 and `Accept-Encoding: identity` (RFC 9110 §15.5.16:
 * "If the problem was caused by an unsupported content coding, the Accept-Encoding response header field … ought
 * to be used to indicate which (if any) content codings would have been accepted"; RFC 7694 §3).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../errors.js';

/** The refusal of a request whose body has a content coding other than identity, or null when it has none. */
export function contentEncodingProblem(request: FastifyRequest, reply: FastifyReply): OAuthError | null {
  const coding = request.headers['content-encoding']?.trim();
  if (coding === undefined || coding === '' || coding.toLowerCase() === 'identity') return null;
  // Only a body can be encoded: a GET that says so by mistake has nothing to misread.
  const { 'content-length': length, 'transfer-encoding': chunked } = request.headers;
  if (chunked === undefined && (length === undefined || length === '0')) return null;
  reply.header('accept-encoding', 'identity');
  // invalid_request on the API (the client's to fix) with the status that says why; the pages show the description.
  return new OAuthError(
    'invalid_request',
    415,
    `The request body has Content-Encoding ${coding.slice(0, 40)}, which Latch does not decode; send it uncompressed, without Content-Encoding (RFC 9110 section 15.5.16)`,
    { redirectable: false },
  );
}
