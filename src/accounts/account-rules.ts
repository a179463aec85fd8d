/**
 * What a valid account looks like: email, display name, avatar URL and password rules, each returning a
 * message a person can act on, or null when the value is fine. Shared by the CLI and the sign-up page.
 *
 * The rules the pages show come as message keys (…Problem), told in the page's language (issue 19 item 7);
 * check… gives the same in English, for the CLI and the pages not translated yet.
 */
import { hasControlOrDirectionMark, showsAsNothing } from '../display-text.js';
import type { MessageKey } from '../i18n/messages/index.js';
import { translator, type Params } from '../i18n/translator.js';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;
const EMAIL_MAX_LENGTH = 254;
const NAME_MAX_LENGTH = 100;

/** A broken rule, as a message of the catalogue (i18n/messages/en.ts "rules."). */
export interface RuleProblem {
  key: MessageKey;
  params?: Params;
}

export function inEnglish(problem: RuleProblem | null): string | null {
  return problem && translator('en').t(problem.key, problem.params);
}

// Deliberately simple (one @, a dot in the domain, no spaces): the verification mail is the real check.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailProblem(email: string): RuleProblem | null {
  if (email.length > EMAIL_MAX_LENGTH) return { key: 'rules.email.tooLong', params: { count: EMAIL_MAX_LENGTH } };
  if (!EMAIL_PATTERN.test(email)) return { key: 'rules.email.malformed' };
  return null;
}

export function checkEmail(email: string): string | null {
  return inEnglish(emailProblem(email));
}

export function nameProblem(name: string): RuleProblem | null {
  // The rules an app's name follows (display-text.ts): nothing that hides or reorders what people read.
  if (showsAsNothing(name)) return { key: 'rules.name.empty' };
  if (name.length > NAME_MAX_LENGTH) return { key: 'rules.name.tooLong', params: { count: NAME_MAX_LENGTH } };
  if (hasControlOrDirectionMark(name)) return { key: 'rules.name.control' };
  return null;
}

export function checkName(name: string): string | null {
  return inEnglish(nameProblem(name));
}

/** http:// is for a person's own machine only (as for redirect URIs): anywhere else the picture would travel in the clear. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The avatar's address goes to apps as it was given (the user object's avatar_url, the `picture` claim): an absolute
 * https:// URL, written out (not `https:host`), with no spaces, control characters or text-direction marks, which
 * a URL parser would quietly drop or encode, and no user name or password in it.
 */
export function avatarUrlProblem(url: string): RuleProblem | null {
  if (url.length > 2000) return { key: 'account.error.urlTooLong' };
  if (/[\s\p{Cc}\p{Bidi_Control}]/u.test(url)) return { key: 'account.error.urlCharacters' };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'https' && scheme !== 'http') return { key: 'account.error.urlNotHttps' };
  if (!/^https?:\/\//i.test(url)) return { key: 'account.error.urlNotAbsolute' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { key: 'account.error.urlNotAbsolute' };
  }
  if (parsed.username !== '' || parsed.password !== '') return { key: 'account.error.urlCredentials' };
  if (parsed.protocol === 'https:' || LOOPBACK_HOSTS.has(parsed.hostname)) return null;
  return { key: 'account.error.urlNotHttps' };
}

export function checkAvatarUrl(url: string): string | null {
  return inEnglish(avatarUrlProblem(url));
}

/** NIST SP 800-63B §5.1.1.2: length over composition rules, and no password that is the email itself. */
export function passwordProblem(password: string, email?: string): RuleProblem | null {
  if (password.length < PASSWORD_MIN_LENGTH) return { key: 'rules.password.tooShort', params: { count: PASSWORD_MIN_LENGTH } };
  if (password.length > PASSWORD_MAX_LENGTH) return { key: 'rules.password.tooLong', params: { count: PASSWORD_MAX_LENGTH } };
  if (new Set(password).size < 4) return { key: 'rules.password.repeated' };
  if (email && password.toLowerCase() === email.trim().toLowerCase()) return { key: 'rules.password.isEmail' };
  return null;
}

export function checkPassword(password: string, email?: string): string | null {
  return inEnglish(passwordProblem(password, email));
}
