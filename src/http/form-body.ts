/**
 * Reading an OAuth form body (RFC 6749 §4.1.3: application/x-www-form-urlencoded; the service's reference call
 * also sends multipart/form-data, docs/protocol-decisions.md "Token endpoint") into parameters, each a string or,
 * when repeated, a list of strings.
 *
 * Multipart is read here, part by part, rather than by a body-parsing hook, so that every way a multipart
 * body can be malformed (truncated, no closing boundary, a file, an oversized field) becomes invalid_request
 * naming the problem, never a server error.
 */
import type { FastifyError, FastifyRequest } from 'fastify';
import { InvalidRequest, OAuthError, PageError } from '../errors.js';
import { isParsedForm } from './percent-encoding.js';

/** Request parameters as read from a query string or a form body: a string, or a list when repeated. */
export type RawParams = Record<string, string | string[] | undefined>;

function addParam(params: RawParams, name: string, value: string): void {
  const existing = params[name];
  params[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
}

const MALFORMED_MULTIPART = 'The multipart/form-data body is malformed (check the boundary and that every part is complete)';
const UNREADABLE_UPLOAD = 'The upload was cut short or the form was not well-formed; try again';

async function readMultipartParams(request: FastifyRequest): Promise<RawParams> {
  // No prototype: a field named __proto__ stays an ordinary (ignored) parameter.
  const params: RawParams = Object.create(null);
  try {
    const parts = request.parts()[Symbol.asyncIterator]();
    for (;;) {
      const next = await unlessStalled(parts.next(), request, () => new InvalidRequest(MALFORMED_MULTIPART));
      if (next.done) break;
      const part = next.value;
      if (part.type === 'file') throw new InvalidRequest(`${part.fieldname} must be a plain form field, not a file`);
      if (part.fieldnameTruncated || part.valueTruncated) throw new InvalidRequest(`The form field ${part.fieldname.slice(0, 64)} is too large`);
      const value = typeof part.value === 'string' ? part.value : String(part.value);
      // As in a urlencoded body (http/percent-encoding.ts nulCharacter): PostgreSQL cannot compare text with a NUL.
      if (part.fieldname.includes('\u0000') || value.includes('\u0000')) throw new InvalidRequest('A form field holds a NUL character, which no parameter may contain; remove it');
      addParam(params, part.fieldname, value);
    }
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    const status = (error as FastifyError).statusCode;
    // The plugin's own limit errors carry a 4xx status and are described by the error handler.
    if (status !== undefined && status >= 400 && status < 500) throw error;
    throw new InvalidRequest(MALFORMED_MULTIPART, { cause: error });
  }
  return params;
}

function urlencodedParams(body: unknown): RawParams {
  if (body === undefined || body === null) return Object.create(null) as RawParams;
  // The form parser's own result is already this shape (no prototype, strings or lists of strings): no copy. The
  // copy was 2% of an introspection's main-thread time under the bench's profiler (2026-11-28).
  if (isParsedForm(body)) return body as RawParams;
  if (typeof body !== 'object') throw new InvalidRequest('The request body must be a form');
  const params: RawParams = Object.create(null);
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') params[name] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) params[name] = value as string[];
    else throw new InvalidRequest(`${name.slice(0, 64)} must be a plain form field`);
  }
  return params;
}

/**
 * Multipart parameters of a request, read once: its stream can be read only once, and the rate limits
 * (http/rate-limits.ts) may need the client_id in it before the route reads the rest.
 */
const multipartRead = new WeakMap<FastifyRequest, Promise<RawParams>>();
const multipartParams = new WeakMap<FastifyRequest, RawParams>();

export function readFormParams(request: FastifyRequest): Promise<RawParams> | RawParams {
  if (!request.isMultipart()) return urlencodedParams(request.body);
  let read = multipartRead.get(request);
  if (!read) {
    read = readMultipartParams(request).then((params) => {
      multipartParams.set(request, params);
      return params;
    });
    multipartRead.set(request, read);
  }
  return read;
}

/** The parameters of a multipart body already read (readFormParams), else undefined. */
export function multipartParamsRead(request: FastifyRequest): RawParams | undefined {
  return multipartParams.get(request);
}

/**
 * A page form's upload that could not be read: cut short, not well-formed multipart, or over the form's
 * limits. The description is for the person who sent it, shown on the page they came from.
 */
export class UploadProblem extends PageError {
  constructor(description: string, options: { cause?: unknown } = {}) {
    super(400, description, options);
  }
}

export interface UploadForm {
  /** The plain fields, each a string or, when repeated, a list (no prototype: __proto__ stays a field). */
  fields: Record<string, string | string[]>;
  /** The files by field name; a file over the parser's fileSize limit is cut at that limit. */
  files: Record<string, Buffer>;
}

/** Why a multipart body could not be read, in words for a person (the plugin's limit errors, busboy's errors). */
function describeUploadFailure(error: unknown): string {
  switch ((error as FastifyError).code) {
    case 'FST_FILES_LIMIT':
      return 'Send one file at a time';
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return 'The form has more fields than this page sends; reload the page and try again';
    case 'FST_PROTO_VIOLATION':
      return 'The form has a field name that is not allowed';
    default:
      return UNREADABLE_UPLOAD;
  }
}

/** How long reading a multipart body may make no progress once every byte of it has arrived. */
const STALL_AFTER_ARRIVAL_MS = 2000;

/**
 * `step`, or `problem()` (an UploadProblem by default) when the request has arrived whole and `step` still has not settled
 * STALL_AFTER_ARRIVAL_MS later. @fastify/multipart 10 (with @fastify/busboy) can stop reading for good on some
 * malformed bodies (a part without Content-Disposition of about 16–64 KiB, found by test/fuzz/multipart.test.ts):
 * the request stays paused and would never be answered. While bytes are still arriving, the wait is left to
 * the request timeout (LATCH_REQUEST_TIMEOUT_SECONDS), so that a slow upload is not cut short.
 */
function unlessStalled<T>(step: Promise<T>, request: FastifyRequest, problem: () => Error = () => new UploadProblem(UNREADABLE_UPLOAD)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let arrivedAt: number | undefined;
  const stalled = new Promise<never>((_, reject) => {
    const check = () => {
      if (request.raw.complete) arrivedAt ??= Date.now();
      if (arrivedAt !== undefined && Date.now() - arrivedAt >= STALL_AFTER_ARRIVAL_MS) {
        reject(problem());
        return;
      }
      timer = setTimeout(check, 250);
    };
    timer = setTimeout(check, 250);
  });
  // Abandoned by a stall, the step may still fail later: that must not become an unhandled rejection.
  step.catch(() => {});
  return Promise.race([step, stalled]).finally(() => clearTimeout(timer));
}

/**
 * Reads a multipart page form with files (the avatar upload) through @fastify/multipart, turning every way
 * the body can be malformed (no or bad boundary, truncated, aborted, over the limits) into an UploadProblem.
 */
export async function readUploadForm(request: FastifyRequest): Promise<UploadForm> {
  const fields: Record<string, string | string[]> = Object.create(null);
  const files: Record<string, Buffer> = Object.create(null);
  const parts = request.parts()[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await unlessStalled(parts.next(), request);
      if (next.done) break;
      const part = next.value;
      if (part.type === 'file') {
        if (part.fieldname in files) throw new UploadProblem('Send one file at a time');
        files[part.fieldname] = await unlessStalled(part.toBuffer(), request);
      } else {
        if (part.fieldnameTruncated || part.valueTruncated) throw new UploadProblem('A field of the form is too large; reload the page and try again');
        addParam(fields, part.fieldname, typeof part.value === 'string' ? part.value : String(part.value));
      }
    }
  } catch (error) {
    if (error instanceof UploadProblem) throw error;
    throw new UploadProblem(describeUploadFailure(error), { cause: error });
  }
  return { fields, files };
}
