/**
 * Load and bookkeeping for the fault tests (test/faults/): a client application and a user made with the real
 * CLI, authorization codes minted straight into the database the way the authorization endpoint stores them
 * (as bench/latch-mint.mjs does), an open-loop load of code exchanges at a fixed rate with a per-request
 * time limit, a ledger of what each request ended with, and the check that every acknowledged token survived.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { runLatch } from './latch-process.js';
import { generateTimeOrderedSecret, hashTimeOrderedSecret, SECRET_PREFIX } from '../../src/crypto/secrets.js';
import { openStorage } from '../../src/storage/open-storage.js';

export const REDIRECT_URI = 'http://127.0.0.1:9999/callback';
export const USER_PASSWORD = 'correct horse battery staple';

export interface FaultClient {
  clientId: string;
  clientSecret: string;
}

export interface PreparedData {
  client: FaultClient;
  userId: number;
  email: string;
}

/** Migrates, then registers one client and one user through `latch client create` / `latch user create`. */
export async function prepareData(env: Record<string, string>, email = 'fault@example.com'): Promise<PreparedData> {
  const migrated = await runLatch(['migrate'], { env });
  if (migrated.code !== 0) throw new Error(`latch migrate failed: ${migrated.stderr}`);
  const created = await runLatch(['client', 'create', '--name', 'Fault App', '--redirect-uri', REDIRECT_URI, '--json'], { env });
  if (created.code !== 0) throw new Error(`latch client create failed: ${created.stderr}`);
  const client = JSON.parse(created.stdout);
  const user = await runLatch(['user', 'create', '--email', email, '--name', 'Fault User', '--email-verified', '--password-stdin', '--json'], {
    env,
    input: USER_PASSWORD,
  });
  if (user.code !== 0) throw new Error(`latch user create failed: ${user.stderr}`);
  return { client: { clientId: client.client_id, clientSecret: client.client_secret }, userId: JSON.parse(user.stdout).id, email };
}

/** Mints `count` unexchanged codes (no PKCE, bound to REDIRECT_URI, scope profile), valid for `ttlSeconds`. */
export async function mintCodes(
  databaseUrl: string,
  options: { postgresSchema?: string; clientId: string; userId: number; count: number; ttlSeconds?: number },
): Promise<string[]> {
  const storage = await openStorage(databaseUrl, { migrate: false, postgresSchema: options.postgresSchema ?? null, poolSize: 2 });
  const codes: string[] = [];
  try {
    for (let done = 0; done < options.count; done += 500) {
      const batch: string[] = [];
      for (let i = done; i < Math.min(options.count, done + 500); i++) batch.push(generateTimeOrderedSecret(SECRET_PREFIX.authorizationCode));
      const now = new Date();
      await storage.transaction(async (trx) => {
        for (const code of batch) {
          await trx.authorizationCodes.insert({
            codeHash: hashTimeOrderedSecret(code),
            grantId: hashTimeOrderedSecret(code),
            clientId: options.clientId,
            userId: options.userId,
            redirectUri: REDIRECT_URI,
            scope: ['profile'],
            nonce: null,
            codeChallenge: null,
            authTime: now,
            createdAt: now,
            expiresAt: new Date(now.getTime() + (options.ttlSeconds ?? 600) * 1000),
          });
        }
      });
      codes.push(...batch);
    }
  } finally {
    await storage.close();
  }
  return codes;
}

// ---------------------------------------------------------------------------------------------------------
// HTTP with an exact account of how each request ended.

export type Ending = 'answered' | 'reset' | 'refused' | 'hung' | 'error';

export interface HttpResult {
  ending: Ending;
  status?: number;
  headers?: http.IncomingHttpHeaders;
  text?: string;
  /** Parsed JSON body, when the body is JSON. */
  body?: any;
  /** Error code or message when not answered. */
  error?: string;
  startedAt: number;
  endedAt: number;
}

function classify(error: NodeJS.ErrnoException): Ending {
  if (error.code === 'ECONNREFUSED') return 'refused';
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || /socket hang up/i.test(error.message)) return 'reset';
  return 'error';
}

/**
 * One HTTP request; never throws. A request still unanswered after `timeoutMs` is destroyed and counted as
 * hung (the fault tests assert there are none).
 */
export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number; agent?: http.Agent } = {},
): Promise<HttpResult> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<HttpResult, 'startedAt' | 'endedAt'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, startedAt, endedAt: Date.now() });
    };
    const request = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: options.agent ?? false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error: NodeJS.ErrnoException) => finish({ ending: classify(error), error: error.code ?? error.message, status: response.statusCode }));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        finish({ ending: 'answered', status: response.statusCode, headers: response.headers, text, body });
      });
    });
    const timer = setTimeout(() => {
      finish({ ending: 'hung', error: `no answer within ${options.timeoutMs} ms` });
      request.destroy();
    }, options.timeoutMs ?? 10_000);
    request.on('error', (error: NodeJS.ErrnoException) => finish({ ending: classify(error), error: error.code ?? error.message }));
    request.end(options.body);
  });
}

export function basicAuth(client: FaultClient): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
}

export function exchange(baseUrl: string, client: FaultClient, code: string, options: { timeoutMs?: number; agent?: http.Agent } = {}): Promise<HttpResult> {
  return httpRequest(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(client), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }).toString(),
    ...options,
  });
}

export function userinfo(baseUrl: string, accessToken: string, timeoutMs = 10_000): Promise<HttpResult> {
  return httpRequest(`${baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${accessToken}` }, timeoutMs });
}

// ---------------------------------------------------------------------------------------------------------
// The load loop and its ledger.

export interface ExchangeRecord extends HttpResult {
  code: string;
  accessToken?: string;
}

export interface LoadOptions {
  /** Where to send each request (a function: a restarted server may have moved). */
  baseUrl: () => string;
  client: FaultClient;
  codes: string[];
  ratePerSecond: number;
  /** Requests in flight at most; beyond it the loop waits (default 64). */
  maxInFlight?: number;
  /** Per-request limit after which a request counts as hung (default 10 s). */
  timeoutMs?: number;
  /** Reuse connections (default true). */
  keepAlive?: boolean;
}

/** An open-loop load of code exchanges: one fresh code per request, sent at a fixed rate until stop(). */
export class ExchangeLoad {
  readonly records: ExchangeRecord[] = [];
  private next = 0;
  private inFlight = new Set<Promise<void>>();
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly agent: http.Agent;

  constructor(private readonly options: LoadOptions) {
    this.agent = new http.Agent({ keepAlive: options.keepAlive ?? true, maxSockets: options.maxInFlight ?? 64 });
  }

  start(): this {
    this.running = true;
    this.loop = this.run();
    return this;
  }

  private async run(): Promise<void> {
    const interval = 1000 / this.options.ratePerSecond;
    const max = this.options.maxInFlight ?? 64;
    let due = performance.now();
    while (this.running) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (!this.running) break;
      if (this.inFlight.size >= max) {
        await Promise.race(this.inFlight);
        continue;
      }
      if (this.next >= this.options.codes.length) throw new Error(`the load ran out of codes (${this.options.codes.length})`);
      const code = this.options.codes[this.next++]!;
      const sending = exchange(this.options.baseUrl(), this.options.client, code, { timeoutMs: this.options.timeoutMs ?? 10_000, agent: this.agent }).then(
        (result) => {
          const record: ExchangeRecord = { ...result, code };
          if (result.status === 200 && typeof result.body?.access_token === 'string') record.accessToken = result.body.access_token;
          this.records.push(record);
        },
      );
      this.inFlight.add(sending);
      void sending.finally(() => this.inFlight.delete(sending));
      // Behind schedule (a stall): do not burst to catch up by more than a few requests.
      due = Math.max(due + interval, performance.now() - 5 * interval);
    }
  }

  /** Stops sending and waits for every request in flight to end (each is bounded by its timeout). */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await Promise.all([...this.inFlight]);
    this.agent.destroy();
  }

  /** Codes sent so far (including those still in flight). */
  get sent(): number {
    return this.next;
  }

  acknowledged(): ExchangeRecord[] {
    return this.records.filter((r) => r.accessToken !== undefined);
  }

  /** "200: 512, 503: 3, reset: 2, …" */
  summary(): Record<string, number> {
    return tally(this.records);
  }
}

/** Counts results by status (answered) or by how they ended otherwise. */
export function tally(results: HttpResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) {
    const key = r.ending === 'answered' ? String(r.status) : r.ending;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Runs fn over items with at most `concurrency` at a time. */
export async function eachLimited<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let index = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (index < items.length) await fn(items[index++]!);
    }),
  );
}

export interface SurvivalReport {
  acknowledged: number;
  surviving: number;
  /** Acknowledged codes that a second exchange did not refuse with invalid_grant. */
  exchangedTwice: string[];
  /** Tokens userinfo did not accept, with what it answered. */
  lost: string[];
}

/**
 * Every acknowledged token must still work at /oauth2/userinfo, and every acknowledged code must be refused
 * when exchanged again (invalid_grant). Userinfo first: the second exchange revokes the code's tokens.
 */
export async function checkSurvival(baseUrl: string, client: FaultClient, acknowledged: ExchangeRecord[]): Promise<SurvivalReport> {
  const lost: string[] = [];
  const exchangedTwice: string[] = [];
  let surviving = 0;
  await eachLimited(acknowledged, 16, async (record) => {
    const info = await userinfo(baseUrl, record.accessToken!);
    if (info.status === 200) surviving += 1;
    else lost.push(`${record.accessToken!.slice(0, 16)}…: ${info.ending} ${info.status ?? ''} ${info.text ?? info.error ?? ''}`.slice(0, 200));
  });
  await eachLimited(acknowledged, 16, async (record) => {
    const again = await exchange(baseUrl, client, record.code);
    if (!(again.status === 400 && again.body?.error === 'invalid_grant')) exchangedTwice.push(`${record.code.slice(0, 16)}…: ${again.ending} ${again.status ?? ''} ${again.text ?? again.error ?? ''}`.slice(0, 200));
  });
  return { acknowledged: acknowledged.length, surviving, exchangedTwice, lost };
}

// ---------------------------------------------------------------------------------------------------------
// Processes.

/** Whether a process exists and is not a zombie (an exited child nobody has reaped yet). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** The direct children of a process (Linux: /proc/PID/task/TID/children), alive ones only. */
export function childPids(pid: number): number[] {
  const found = new Set<number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  for (const task of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/)) if (child) found.add(Number(child));
    } catch {
      // the task ended meanwhile
    }
  }
  return [...found].filter(processAlive).sort((a, b) => a - b);
}

/** Waits until check() is true, polling every `everyMs`; returns the milliseconds waited, or null on timeout. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<number | null> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) return null;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
