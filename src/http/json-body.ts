/**
 * The JSON bodies Latch reads (registration, RFC 7591; the passkey endpoints; a page form a script posts as JSON):
 * Fastify's own parser (secure-json-parse, `__proto__` and `constructor` refused), and then no NUL character in any
 * string or name. JSON can carry one only escaped ("\u0000"), and no value of Latch's may hold one: PostgreSQL cannot
 * store or compare text with a NUL, so a client_name or a sign-in email with one was a 500 there
 * (http/percent-encoding.ts nulCharacter does the same for URLs and forms).
 */
import type { FastifyInstance } from 'fastify';
import { nulCharacter } from './percent-encoding.js';

/** Whether any string or member name in a parsed JSON value holds a NUL. Iterative: JSON can nest deeper than the stack. */
export function holdsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (next.includes('\u0000')) return true;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (next !== null && typeof next === 'object') {
      for (const [name, member] of Object.entries(next)) {
        if (name.includes('\u0000')) return true;
        pending.push(member);
      }
    }
  }
  return false;
}

/** Replaces the root application/json parser with Fastify's default followed by the NUL check. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, body as string, (error, parsed) => {
      if (error) done(error, undefined);
      else if (holdsNul(parsed)) done(nulCharacter('JSON body'), undefined);
      else done(null, parsed);
    });
  });
}
