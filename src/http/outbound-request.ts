/**
 * Latch's own requests to URLs that others registered (back-channel logout, webhooks and client metadata documents),
 * guarded against server-side request forgery (OWASP SSRF Prevention Cheat Sheet):
 *
 * - The host is resolved once, every address is judged (outbound-address.ts), and the connection goes to an
 *   address that passed, through a custom `lookup` on the request: no second resolution between the check and
 *   the connect that a DNS-rebinding server could answer differently. An IP-literal host is judged as it is.
 * - Loopback, private and other special-purpose addresses are refused unless the operator allows them
 *   (`LATCH_OUTBOUND_ALLOW_PRIVATE=1`: tests and development only).
 * - One short deadline covers resolution, connection and the response's headers; redirects are never followed
 *   (a 3xx is an answer like any other); at most a few KiB of the response body are read, then the
 *   connection is dropped; no connection is reused (no agent), so nothing outlives the request.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { judgeAddress, type RefusedRange } from './outbound-address.js';

export type OutboundFailure =
  | { kind: 'invalid_url'; detail: string }
  | { kind: 'refused_address'; address: string; range: RefusedRange }
  | { kind: 'dns'; code: string }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'network'; code: string }
  | { kind: 'too_large'; limitBytes: number };

/** A request that got no HTTP answer, with why, in words a client developer can act on (`message`). */
export class OutboundRequestError extends Error {
  constructor(
    readonly failure: OutboundFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Resolves a host name to every address it has (node:dns lookup by default; tests inject their own). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface OutboundOptions {
  /** `LATCH_OUTBOUND_ALLOW_PRIVATE`: let requests reach loopback, private and other special-purpose addresses. */
  allowPrivateAddresses: boolean;
  /** Resolution, connection and response headers together (default 5000). */
  timeoutMs?: number;
  /** Response body bytes read at most before the connection is dropped (default 4096). */
  maxResponseBytes?: number;
  resolve?: Resolver;
}

export interface OutboundResponse {
  status: number;
}

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_RESPONSE_BYTES = 4096;
const USER_AGENT = 'Latch (OpenID Provider)';

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, order: 'verbatim' }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

function refusal(address: string, range: RefusedRange): OutboundRequestError {
  return new OutboundRequestError(
    { kind: 'refused_address', address, range },
    `refused to connect to ${address}: a ${range} address is not on the public internet, and Latch sends no requests into private networks`,
  );
}

/**
 * The `lookup` the request connects through: resolves once, keeps the addresses that pass, and hands only
 * those to the socket (all of them when Node asks for all, for Happy Eyeballs; else the first).
 */
function guardedLookup(resolve: Resolver, allowPrivate: boolean, onRefused: (error: OutboundRequestError) => void): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const usable = allowPrivate ? addresses : addresses.filter(({ address }) => judgeAddress(address).allowed);
        if (usable.length === 0) {
          const first = addresses[0];
          const error = first ? refusal(first.address, (judgeAddress(first.address) as { range: RefusedRange }).range) : new OutboundRequestError({ kind: 'dns', code: 'ENODATA' }, `${hostname} has no address`);
          onRefused(error);
          callback(error, '', 0);
          return;
        }
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => {
        const failure = new OutboundRequestError({ kind: 'dns', code: error.code ?? 'EAI_FAIL' }, `${hostname} could not be resolved (${error.code ?? error.message})`, { cause: error });
        onRefused(failure);
        callback(error, '', 0);
      },
    );
  };
}

function parseTarget(url: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new OutboundRequestError({ kind: 'invalid_url', detail: 'not an absolute URL' }, `${url} is not an absolute URL`);
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw new OutboundRequestError({ kind: 'invalid_url', detail: 'scheme' }, `${url} is neither an https nor an http URL`);
  }
  if (target.username || target.password) {
    throw new OutboundRequestError({ kind: 'invalid_url', detail: 'credentials' }, 'the URL carries a user name or password; Latch does not send credentials in URLs');
  }
  return target;
}

/** Reads at most `limit` bytes of the body, then stops; settles when the body ended or the limit was reached. */
function drainSome(response: IncomingMessage, limit: number): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= limit) {
        response.destroy();
        resolve();
      }
    });
    response.on('end', resolve);
    response.on('close', resolve);
    response.on('error', () => resolve());
  });
}

/**
 * POSTs `fields` as `application/x-www-form-urlencoded` to `url`. Resolves with the HTTP status of any answer
 * (deciding whether it is a success is the caller's); rejects with OutboundRequestError when there is none.
 */
export function postForm(url: string, fields: Record<string, string>, options: OutboundOptions): Promise<OutboundResponse> {
  return postBody(url, { contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() }, options);
}

/** What postBody sends: the body as it is, its media type, and headers of the caller's own (webhook signatures). */
export interface OutboundBody {
  contentType: string;
  body: string;
  headers?: Readonly<Record<string, string>>;
}

/** The target, after judging an IP-literal host here: it is connected to without any lookup for the guard to see. */
function guardedTarget(url: string, options: OutboundOptions): URL {
  const target = parseTarget(url);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0 && !options.allowPrivateAddresses) {
    const verdict = judgeAddress(host);
    if (!verdict.allowed) throw refusal(host, verdict.range);
  }
  return target;
}

/** One request under way through the guard, and how it ends. */
interface GuardedExchange {
  request: ClientRequest;
  /** Ends the exchange once: clears the deadline, drops the connection, then runs `outcome`; later calls do nothing. */
  settle(outcome: () => void): void;
  /** What a failed request rejects with: the guard's refusal when it refused every address, else a network failure. */
  requestFailure(error: NodeJS.ErrnoException): OutboundRequestError;
}

/**
 * Starts a request to `target` through the guarded lookup, with no agent (so no redirects followed and nothing
 * reused) and Latch's user agent, and arms the one deadline (`onDeadline`, which settles it as the caller sees fit).
 */
function startGuarded(target: URL, method: 'GET' | 'POST', headers: OutgoingHttpHeaders, options: OutboundOptions, onDeadline: () => void): GuardedExchange {
  let refused: OutboundRequestError | undefined;
  let settled = false;
  const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
    method,
    agent: false,
    lookup: guardedLookup(options.resolve ?? systemResolver, options.allowPrivateAddresses, (error) => {
      refused = error;
    }),
    headers: { ...headers, 'user-agent': USER_AGENT },
  });
  const deadline = setTimeout(onDeadline, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return {
    request,
    settle(outcome) {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      outcome();
    },
    requestFailure: (error) =>
      refused ?? new OutboundRequestError({ kind: 'network', code: error.code ?? 'ERROR' }, `the request to ${target.host} failed (${error.code ?? error.message})`, { cause: error }),
  };
}

/** POSTs `body` to `url`, with the same guard and deadline as postForm; resolves with the status of any answer. */
export async function postBody(url: string, { contentType, body, headers = {} }: OutboundBody, options: OutboundOptions): Promise<OutboundResponse> {
  const target = guardedTarget(url, options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  return new Promise<OutboundResponse>((resolve, reject) => {
    let status: number | undefined;
    // One deadline for everything; once the status is in, a body that is still trickling is simply dropped.
    const exchange = startGuarded(
      target,
      'POST',
      { ...headers, 'content-type': contentType, 'content-length': Buffer.byteLength(body), accept: '*/*' },
      options,
      () => {
        if (status !== undefined) exchange.settle(() => resolve({ status: status! }));
        else exchange.settle(() => reject(new OutboundRequestError({ kind: 'timeout', timeoutMs }, `no answer within ${timeoutMs / 1000} s`)));
      },
    );
    const { request, settle } = exchange;
    request.on('response', (response) => {
      status = response.statusCode ?? 0;
      void drainSome(response, maxResponseBytes).then(() => settle(() => resolve({ status: status! })));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (status !== undefined) settle(() => resolve({ status: status! }));
      else settle(() => reject(exchange.requestFailure(error)));
    });
    request.end(body);
  });
}

/** A document fetched by getDocument: its status, headers and whole body (never more than the limit). */
export interface OutboundDocument {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * GETs `url` with the same guard as postForm (checked addresses, no redirects followed, no agent), asking for
 * `accept`. Unlike a POST, the body is the point: the deadline covers the whole body, and a body larger than
 * `maxResponseBytes` (by its content-length or as it arrives) is refused with a `too_large` failure rather than
 * cut short, so that a truncated document is never mistaken for a whole one.
 */
export async function getDocument(url: string, accept: string, options: OutboundOptions): Promise<OutboundDocument> {
  const target = guardedTarget(url, options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const tooLarge = () => new OutboundRequestError({ kind: 'too_large', limitBytes: limit }, `the response is larger than ${limit} bytes`);

  return new Promise<OutboundDocument>((resolve, reject) => {
    const exchange = startGuarded(target, 'GET', { accept }, options, () =>
      exchange.settle(() => reject(new OutboundRequestError({ kind: 'timeout', timeoutMs }, `no complete answer within ${timeoutMs / 1000} s`))),
    );
    const { request, settle } = exchange;
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > limit) {
        settle(() => reject(tooLarge()));
        return;
      }
      const chunks: Buffer[] = [];
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > limit) settle(() => reject(tooLarge()));
        else chunks.push(chunk);
      });
      response.on('end', () => settle(() => resolve({ status, headers: response.headers, body: Buffer.concat(chunks) })));
      response.on('error', (error: NodeJS.ErrnoException) =>
        settle(() => reject(new OutboundRequestError({ kind: 'network', code: error.code ?? 'ERROR' }, `the response from ${target.host} broke off (${error.code ?? error.message})`, { cause: error }))),
      );
    });
    request.on('error', (error: NodeJS.ErrnoException) => settle(() => reject(exchange.requestFailure(error))));
    request.end();
  });
}
