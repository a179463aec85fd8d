/**
 * The `prompt` and `max_age` parameters (OIDC Core §3.1.2.1).
 *
 * prompt is a space-separated list of `none`, `login`, `consent` and `select_account`; `none` with any other
 * value is an error. Latch has one account per browser session, so `select_account` shows the sign-in page,
 * where the user may sign in as someone else: the same as `login`. Any other value is invalid_request, so
 * that a typo does not silently skip the re-authentication a client asked for.
 */
import { InvalidRequest } from '../../errors.js';

export const SUPPORTED_PROMPTS = ['none', 'login', 'consent', 'select_account'] as const;
export type Prompt = (typeof SUPPORTED_PROMPTS)[number];

/** The largest max_age accepted: ten years, far beyond any session, and safe from overflow. */
const MAX_MAX_AGE_SECONDS = 10 * 365 * 86400;

export function parsePrompt(raw: string | undefined): Set<Prompt> {
  const prompts = new Set<Prompt>();
  if (raw === undefined) return prompts;
  for (const value of raw.split(' ')) {
    if (value === '') continue;
    if (!(SUPPORTED_PROMPTS as readonly string[]).includes(value)) {
      throw new InvalidRequest(`prompt value "${value.slice(0, 40)}" is not supported; use none, login, consent or select_account`);
    }
    prompts.add(value as Prompt);
  }
  if (prompts.has('none') && prompts.size > 1) throw new InvalidRequest('prompt=none cannot be combined with other prompt values (OIDC Core §3.1.2.1)');
  return prompts;
}

/** max_age: a non-negative integer number of seconds, digits only (OIDC Core §3.1.2.1). */
export function parseMaxAge(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  if (!/^\d{1,10}$/.test(raw)) throw new InvalidRequest('max_age must be a non-negative integer number of seconds');
  const seconds = Number(raw);
  if (seconds > MAX_MAX_AGE_SECONDS) throw new InvalidRequest(`max_age must be at most ${MAX_MAX_AGE_SECONDS} seconds`);
  return seconds;
}
