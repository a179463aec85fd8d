/**
 * Building blocks for the property-based tests in test/fuzz/: generators of hostile parameters, bodies and
 * headers, a raw HTTP sender that can put any byte a real client could send on the wire (fetch refuses some),
 * and the checks every answer must pass.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { parse as parseHtml } from 'node-html-parser';

/** fast-check settings for every property: bounded runs, reproducible with the printed seed (LATCH_FUZZ_SEED=…). */
export const FUZZ_RUNS = Number(process.env.LATCH_FUZZ_RUNS ?? 150);
const FUZZ_SEED = process.env.LATCH_FUZZ_SEED === undefined ? undefined : Number(process.env.LATCH_FUZZ_SEED);
export const fuzzOptions = { numRuns: FUZZ_RUNS, endOnFailure: true, ...(FUZZ_SEED === undefined ? {} : { seed: FUZZ_SEED }) } as const;

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/**
 * Runs a property like fc.assert, but reports a failure readably: generated values can be megabytes long,
 * so the counterexample and the message are cut short (the seed and path reproduce it in full).
 */
export async function checkProperty<Ts extends [unknown, ...unknown[]]>(property: fc.IAsyncPropertyWithHooks<Ts>, options: { numRuns?: number } = {}): Promise<void> {
  const details = await fc.check(property, { ...fuzzOptions, ...options });
  if (!details.failed) return;
  const example = JSON.stringify(details.counterexample, (_key, value: unknown) => {
    const buffer = value as { type?: string; data?: number[] } | null;
    if (buffer && buffer.type === 'Buffer' && Array.isArray(buffer.data)) return `<${buffer.data.length} bytes> ${shorten(Buffer.from(buffer.data).toString('latin1'), 300)}`;
    return typeof value === 'string' ? shorten(value, 300) : value;
  });
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(
    `Property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}")\n` +
      `${shorten(cause, 1500)}\nCounterexample: ${shorten(example, 2000)}`,
  );
}

/** RFC 6749 §4.1.2.1 and §5.2, RFC 6750 §3.1: the error codes an endpoint may answer with. */
export const RFC_ERROR_CODES = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'unsupported_response_type',
  'invalid_scope',
  'access_denied',
  'invalid_token',
  'insufficient_scope',
  'temporarily_unavailable',
]);

/** RFC 6749 §5.2: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
export const ERROR_DESCRIPTION_CHARSET = /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/;

export interface RawHttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

/**
 * One HTTP/1.1 request with exactly these headers (latin-1 values allowed, as on the wire) and body bytes.
 * Node refuses only what no HTTP parser would accept (CR, LF, NUL and other controls in header values).
 */
/** How long sendRaw waits for an answer (Latch's own request timeout is 60 s, and counts only the request's arrival). */
const SEND_TIMEOUT_MS = 15_000;

export function sendRaw(
  baseUrl: string,
  init: { method: string; path: string; headers?: Array<[string, string]>; body?: Buffer | string },
): Promise<RawHttpResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of init.headers ?? []) {
      const existing = headers[name];
      headers[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
    }
    const request = httpRequest(
      { host: url.hostname, port: url.port, method: init.method, path: init.path, headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body, text: body.toString('utf8') });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    // A request that gets no answer is a failure to report (with the property's seed), not a test run that hangs.
    request.setTimeout(SEND_TIMEOUT_MS, () => request.destroy(new Error(`no answer within ${SEND_TIMEOUT_MS} ms: the server left the request hanging`)));
    request.end(init.body);
  });
}

/**
 * A query string as a client puts it on the request line: characters that cannot appear there (space,
 * controls, non-ASCII, #) percent-encoded, everything else, including broken %-escapes, left as generated.
 */
export function asRequestTarget(query: string): string {
  return query.replace(/[^\x21-\x7e]|#/gu, (character) => {
    try {
      return encodeURIComponent(character);
    } catch {
      return '%ED%A0%80'; // a lone surrogate: send the bytes it would have had, which are not valid UTF-8
    }
  });
}

// ---- generators ----

/** Characters a header value may carry on the wire: tab, visible ASCII, space, latin-1 high bytes. */
const headerChar = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.constant(0x09) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
).map((code) => String.fromCharCode(code));
export const headerValue = fc.string({ unit: headerChar, maxLength: 300 }).map((value) => value.trim());

/** Any text: ASCII, unicode, control characters, lone surrogates, long runs. */
export const anyText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('"', '\\', '\u0000', '\n', '\r', '%', '&', '=', '+', '#', '?', '/', ' ', '\ud800'), maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'null', 'undefined', '[]', '{}', '__proto__', 'constructor', 'toString', '0', '-1', 'NaN') },
);

/** Parameter names: the ones that matter, near misses, and prototype-polluting ones. */
export function parameterName(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', `${known[0]}[]`, `${known[0]}[0]`, '') },
    { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  );
}

/** A list of name=value pairs with repeats allowed: the shape of a query string or a form. */
export function parameterList(known: readonly string[], values: fc.Arbitrary<string> = anyText): fc.Arbitrary<Array<[string, string]>> {
  return fc.array(fc.tuple(parameterName(known), values), { maxLength: 12 });
}

/** Encodes pairs as a query string or form body, sometimes with broken percent-encoding mixed in. */
export function encodePairs(pairs: Array<[string, string]>): string {
  const search = new URLSearchParams();
  for (const [name, value] of pairs) search.append(name, value);
  return search.toString();
}

/** Raw query or form text: well-formed pairs, or outright garbage (bad %-escapes, bare &, =, ;). */
export function rawFormText(known: readonly string[], values: fc.Arbitrary<string> = anyText): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: parameterList(known, values).map(encodePairs) },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.oneof(fc.constantFrom('%', '%2', '%zz', '%00', '%ff', '&', '=', '&&', '==', ';', '+', '%E2%82', '%C0%AF', '[', ']'), fc.string({ maxLength: 8 })), { maxLength: 20 })
        .map((parts) => parts.join('')),
    },
  );
}

export const contentTypes = fc.oneof(
  { weight: 5, arbitrary: fc.constant('application/x-www-form-urlencoded') },
  { weight: 1, arbitrary: fc.constant('application/x-www-form-urlencoded; charset=utf-8') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json',
      'text/plain',
      'text/html',
      'application/xml',
      'application/octet-stream',
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary=xyz',
      'application/x-www-form-urlencoded; charset=latin1',
      'application/x-www-form-urlencoded; charset=nonsense',
      'image/png',
      '*/*',
      ';;;',
      '',
    ),
  },
  { weight: 1, arbitrary: headerValue },
);

/** Request bodies: forms, JSON, multipart made by hand (sometimes broken), and random bytes. */
export function bodies(known: readonly string[], values: fc.Arbitrary<string> = anyText): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 4, arbitrary: rawFormText(known, values).map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: fc.dictionary(parameterName(known), fc.jsonValue({ maxDepth: 2 })).map((value) => Buffer.from(JSON.stringify(value))) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(parameterList(known, values), fc.boolean(), fc.boolean())
        .map(([pairs, withFile, truncated]) => {
          const parts = pairs.map(([name, value]) => `--xyz\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
          if (withFile) parts.push('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n\u0000\u0001\u0002\r\n');
          const text = `${parts.join('')}--xyz--\r\n`;
          return Buffer.from(truncated ? text.slice(0, Math.floor(text.length / 2)) : text);
        }),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
  );
}

/** Random extra headers, sometimes repeated; never ones that would break the HTTP framing itself. */
export const extraHeaders = fc.array(
  fc.tuple(
    fc.constantFrom('authorization', 'cookie', 'x-forwarded-for', 'accept', 'accept-language', 'origin', 'referer', 'user-agent', 'x-request-id', 'forwarded', 'x-custom'),
    headerValue,
  ),
  { maxLength: 4 },
);

// ---- checks ----

/** A 4xx JSON error in the RFC 6749 §5.2 shape, with a request id and no-store. */
export function assertJsonError(response: RawHttpResponse, context: string): Record<string, unknown> {
  assert.ok(response.status >= 400 && response.status < 500, `${context}: a 4xx, got ${response.status}: ${response.text.slice(0, 300)}`);
  assert.match(String(response.headers['content-type']), /^application\/json/, context);
  const body = JSON.parse(response.text) as Record<string, unknown>;
  assert.ok(RFC_ERROR_CODES.has(String(body.error)), `${context}: error is an RFC code: ${response.text.slice(0, 300)}`);
  assert.equal(typeof body.error_description, 'string', context);
  assert.match(String(body.error_description), ERROR_DESCRIPTION_CHARSET, `${context}: error_description uses the RFC 6749 §5.2 characters only`);
  assert.equal(body.request_id, response.headers['x-request-id'], `${context}: request id`);
  assert.equal(response.headers['cache-control'], 'no-store', context);
  return body;
}

export function assertNoServerError(response: RawHttpResponse, context: string): void {
  assert.ok(response.status < 500, `${context}: never a 5xx, got ${response.status}: ${response.text.slice(0, 300)}`);
  assert.doesNotMatch(response.text, /\n\s+at .*\(.*:\d+:\d+\)/, `${context}: no stack trace`);
}

// ---- raw sockets and routes ----

export interface RawSocketResponse {
  /** The status of the first response on the connection, or null when the server closed it without one. */
  status: number | null;
  headers: Record<string, string>;
  /** The first response's body (by its Content-Length; without one, everything after the headers). */
  text: string;
}

/**
 * Writes bytes on a fresh TCP connection exactly as given (a request line Node's client would refuse, a body
 * longer or shorter than its Content-Length, broken chunked framing), then reads until the server closes the
 * connection or `waitMs` passes. With `abortAfterMs`, the client resets the connection that long after writing,
 * as one that goes away mid-upload. With `endAfterWrite: false`, the connection stays open for writing.
 */
export function sendRawBytes(
  baseUrl: string,
  chunks: Array<Buffer | string>,
  options: { endAfterWrite?: boolean; waitMs?: number; abortAfterMs?: number; pauseBetweenChunksMs?: number } = {},
): Promise<RawSocketResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    let finished = false;
    const socket = connect(Number(url.port), url.hostname);
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseRawResponse(Buffer.concat(received)));
    };
    const timer = setTimeout(finish, options.waitMs ?? 3000);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('close', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? finish() : reject(error)));
    socket.on('connect', async () => {
      for (const [index, chunk] of chunks.entries()) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (options.pauseBetweenChunksMs && index < chunks.length - 1) await new Promise((r) => setTimeout(r, options.pauseBetweenChunksMs));
      }
      if (options.abortAfterMs !== undefined) setTimeout(() => (socket.resetAndDestroy(), finish()), options.abortAfterMs);
      else if (options.endAfterWrite !== false) socket.end();
    });
  });
}

function parseRawResponse(raw: Buffer): RawSocketResponse {
  const text = raw.toString('latin1');
  const match = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n/.exec(text);
  if (!match) return { status: null, headers: {}, text };
  const headerEnd = text.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of text.slice(match[0].length, headerEnd < 0 ? undefined : headerEnd).split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  // Only the first response: bytes sent after a body without a length are answered as a second request.
  const bodyStart = headerEnd < 0 ? raw.length : headerEnd + 4;
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  return { status: Number(match[1]), headers, text: raw.subarray(bodyStart, length === undefined ? undefined : bodyStart + length).toString('utf8') };
}

export interface AppRoute {
  method: string;
  /** The route's path as registered, `:name` for parameters. */
  path: string;
}

/**
 * Every route of the app, read from Fastify's own route tree (`printRoutes({ commonPrefix: false })`), so that
 * a fuzzer over "every route" covers routes added later without anyone updating a list.
 */
export function listRoutes(app: { printRoutes(options: { commonPrefix: false }): string }): AppRoute[] {
  const routes: AppRoute[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([\s│├└─]*?)(?:[├└]── )?(\S+) \(([A-Z, ]+)\)$/u.exec(line);
    if (!match) continue;
    const depth = Math.round([...match[1]!].length / 4);
    stack.length = depth;
    const path = `${stack.at(-1) ?? ''}${match[2]}`;
    stack.push(path);
    for (const method of match[3]!.split(', ')) routes.push({ method, path });
  }
  return routes;
}

/** A concrete path for a route pattern: parameters filled with `parameterValue`. */
export function concretePath(path: string, parameterValue: string): string {
  return path.replace(/:[A-Za-z_]+/g, parameterValue);
}

/**
 * A 4xx must say what was wrong: a JSON error with a description (RFC 6749 §5.2's error_description, or
 * Fastify's message), a page with an alert or a field error that has text, or a non-empty plain text.
 */
export function assertDescribedClientError(response: { status: number | null; headers: Record<string, string | string[] | undefined>; text: string }, context: string): void {
  if (response.status === null || response.status < 400 || response.status >= 500) return;
  const type = String(response.headers['content-type'] ?? '');
  if (type.startsWith('application/json')) {
    const body = JSON.parse(response.text) as Record<string, unknown>;
    const description = body.error_description ?? body.message;
    assert.ok(typeof description === 'string' && description.trim() !== '', `${context}: a JSON 4xx with a description: ${response.text.slice(0, 300)}`);
  } else if (type.startsWith('text/html')) {
    const page = parseHtml(response.text);
    const messages = [...page.querySelectorAll('[role="alert"]'), ...page.querySelectorAll('.field-error')].map((element) => element.textContent.trim());
    assert.ok(messages.some((message) => message !== ''), `${context}: a page with a message saying what was wrong: ${response.text.slice(0, 300)}`);
  } else {
    assert.ok(response.text.trim() !== '', `${context}: a ${response.status} with type ${type} says what was wrong`);
  }
}

export interface RawRouteRequest {
  description: string;
  chunks: Buffer[];
  options: { endAfterWrite?: boolean; waitMs?: number; abortAfterMs?: number };
}

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'CONNECT', 'SEARCH', 'QUERY'] as const;

/** Form field names a page or endpoint reads, so that random bodies sometimes hit real fields. */
const KNOWN_FIELDS = ['_csrf', 'email', 'password', 'name', 'return_to', 'grant_type', 'code', 'client_id', 'client_secret', 'redirect_uri', 'token', 'avatar', 'decision', 'authorization_request'] as const;

/**
 * A hostile request to one of `routes`, as bytes on a socket: the route's method or another, its path with
 * odd parameters, suffixes and queries, random headers (with the session's cookie sometimes), and a body
 * framed honestly or not: exact, shorter or longer than its Content-Length, chunked (well or badly), or
 * sent by a client that resets the connection half-way.
 */
export function rawRouteRequest(routes: readonly AppRoute[], session?: { cookie: string; csrf: string }): fc.Arbitrary<RawRouteRequest> {
  const fieldValues = fc.oneof({ weight: 3, arbitrary: anyText }, { weight: 1, arbitrary: fc.constant(session?.csrf ?? '') });
  return fc
    .record({
      route: fc.constantFrom(...routes),
      otherMethod: fc.option(fc.oneof(fc.constantFrom(...HTTP_METHODS), fc.stringMatching(/^[A-Z]{1,12}$/)), { freq: 3, nil: undefined }),
      parameter: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), anyText.map((text) => asRequestTarget(text.slice(0, 300)))),
      suffix: fc.constantFrom('', '', '', '/', '//', '/..', '/%2e%2e', '%00', '%zz', '%c0%af', '/x', ';x', '.json', '#frag'),
      query: fc.option(rawFormText(KNOWN_FIELDS, fieldValues), { freq: 2, nil: undefined }),
      withCookie: fc.boolean(),
      // The hand-made multipart bodies use the boundary xyz: often say so, so that they are really parsed.
      contentType: fc.option(fc.oneof(contentTypes, fc.constant('multipart/form-data; boundary=xyz')), { nil: undefined }),
      headers: extraHeaders,
      body: bodies(KNOWN_FIELDS, fieldValues),
      framing: fc.constantFrom('exact', 'exact', 'exact', 'none', 'shorter', 'longer', 'chunked', 'broken chunked', 'reset'),
      split: fc.nat(),
    })
    .map(({ route, otherMethod, parameter, suffix, query, withCookie, contentType, headers, body, framing, split }) => {
      const method = otherMethod ?? route.method;
      const path = `${concretePath(route.path, parameter)}${suffix}${query === undefined ? '' : `?${asRequestTarget(query)}`}`;
      const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
      for (const [name, value] of headers) if (name !== 'cookie') lines.push(`${name}: ${value}`);
      if (withCookie && session) lines.push(`Cookie: ${session.cookie}`);
      if (contentType !== undefined) lines.push(`Content-Type: ${contentType}`);
      const cut = body.length === 0 ? 0 : split % body.length;
      let payload = body;
      if (framing === 'exact' || framing === 'reset') lines.push(`Content-Length: ${body.length}`);
      if (framing === 'shorter') lines.push(`Content-Length: ${cut}`);
      if (framing === 'longer') lines.push(`Content-Length: ${body.length + 1 + (split % 5000)}`);
      if (framing === 'chunked' || framing === 'broken chunked') {
        lines.push('Transfer-Encoding: chunked');
        const pieces = [body.subarray(0, cut), body.subarray(cut)].filter((piece) => piece.length > 0);
        const chunked = pieces.map((piece) => Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]));
        payload = Buffer.concat([...chunked, Buffer.from('0\r\n\r\n')]);
        if (framing === 'broken chunked') payload = payload.subarray(0, Math.max(1, payload.length - 3 - (split % 7)));
      }
      const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
      const options = framing === 'reset' ? { abortAfterMs: 20, waitMs: 2000 } : { waitMs: 2500 };
      const sent = framing === 'reset' ? payload.subarray(0, cut) : payload;
      return {
        description: `${method} ${path.slice(0, 200)} (${framing}, ${body.length} bytes, type ${contentType})`,
        chunks: [head, sent],
        options,
      };
    });
}

// ---- multipart ----

/** A boundary as RFC 2046 §5.1.1 allows it, or one that breaks a rule (empty, too long, quoted, spaces). */
const boundaries = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,70}$/) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'x'.repeat(71), 'x'.repeat(300), 'a b', '--', 'é', '"') },
);

interface GeneratedPart {
  name: string | undefined;
  filename: string | undefined;
  contentType: string | undefined;
  extraHeader: [string, string] | undefined;
  value: Buffer;
}

/**
 * multipart/form-data bodies, well-formed or broken in every way a parser meets: bad or missing boundaries,
 * parts without a name or a Content-Disposition, files where fields are expected (and the reverse), odd part
 * headers, LF-only line ends, random preamble and epilogue, bodies cut short anywhere. `leading` parts come
 * first, intact (a CSRF token), so that a body gets past the checks that guard the parsing of the rest.
 */
export function multipartBodies(known: readonly string[], leading: Array<[string, string]> = [], fileValues: fc.Arbitrary<Buffer> = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes))): fc.Arbitrary<{ contentType: string; body: Buffer; description: string }> {
  const part: fc.Arbitrary<GeneratedPart> = fc.record({
    name: fc.option(parameterName(known), { freq: 8, nil: undefined }),
    filename: fc.option(fc.oneof(fc.constantFrom('a.png', 'a.svg', '', '../../etc/passwd', 'a"b.png', 'ä.png'), fc.string({ maxLength: 20 })), { freq: 2, nil: undefined }),
    contentType: fc.option(fc.constantFrom('image/png', 'application/json', 'text/plain; charset=utf-16', 'application/octet-stream', 'multipart/mixed; boundary=inner', '', ';;'), { freq: 2, nil: undefined }),
    extraHeader: fc.option(fc.tuple(fc.constantFrom('Content-Transfer-Encoding', 'Content-Length', 'X-Other', 'Content-Disposition'), headerValue), { freq: 4, nil: undefined }),
    value: fc.oneof(anyText.map((text) => Buffer.from(text)), fileValues),
  });
  return fc
    .record({
      boundary: boundaries,
      typeShape: fc.constantFrom('plain', 'plain', 'plain', 'quoted', 'missing', 'charset first', 'mixed'),
      parts: fc.array(part, { maxLength: 8 }),
      preamble: fc.constantFrom('', '', 'preamble\r\n', '\r\n'),
      epilogue: fc.constantFrom('', '', '\r\nepilogue', 'garbage'),
      close: fc.constantFrom('close', 'close', 'close', 'none', 'wrong boundary', 'no final dashes'),
      lineEnd: fc.constantFrom('\r\n', '\r\n', '\r\n', '\n'),
      cutAt: fc.option(fc.nat(), { freq: 3, nil: undefined }),
    })
    .map(({ boundary, typeShape, parts, preamble, epilogue, close, lineEnd, cutAt }) => {
      const contentType = {
        plain: `multipart/form-data; boundary=${boundary}`,
        quoted: `multipart/form-data; boundary="${boundary}"`,
        missing: 'multipart/form-data',
        'charset first': `multipart/form-data; charset=utf-8; boundary=${boundary}`,
        mixed: `multipart/mixed; boundary=${boundary}`,
      }[typeShape];
      const chunks: Buffer[] = [Buffer.from(preamble)];
      const writePart = (p: GeneratedPart, eol: string) => {
        const headers: string[] = [];
        if (p.name !== undefined || p.filename !== undefined) {
          headers.push(`Content-Disposition: form-data${p.name === undefined ? '' : `; name="${p.name}"`}${p.filename === undefined ? '' : `; filename="${p.filename}"`}`);
        }
        if (p.contentType !== undefined) headers.push(`Content-Type: ${p.contentType}`);
        if (p.extraHeader) headers.push(`${p.extraHeader[0]}: ${p.extraHeader[1]}`);
        chunks.push(Buffer.from(`--${boundary}${eol}${headers.map((h) => `${h}${eol}`).join('')}${eol}`, 'latin1'), p.value, Buffer.from(eol));
      };
      for (const [name, value] of leading) writePart({ name, filename: undefined, contentType: undefined, extraHeader: undefined, value: Buffer.from(value) }, '\r\n');
      const leadingLength = Buffer.concat(chunks).length;
      for (const p of parts) writePart(p, lineEnd);
      if (close === 'close') chunks.push(Buffer.from(`--${boundary}--${lineEnd}${epilogue}`));
      if (close === 'wrong boundary') chunks.push(Buffer.from(`--${boundary}x--${lineEnd}`));
      if (close === 'no final dashes') chunks.push(Buffer.from(`--${boundary}${lineEnd}`));
      let body = Buffer.concat(chunks);
      if (cutAt !== undefined && body.length > leadingLength) body = body.subarray(0, leadingLength + (cutAt % (body.length - leadingLength)));
      const description = `${contentType.slice(0, 100)}, ${parts.length} parts, ${close}, ${lineEnd === '\n' ? 'LF' : 'CRLF'}${cutAt === undefined ? '' : ', cut short'}`;
      return { contentType, body, description };
    });
}
