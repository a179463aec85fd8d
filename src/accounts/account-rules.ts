/**
 * What a valid account looks like: email, display name, avatar URL and password rules, each returning a
 * message a person can act on, or null when the value is fine. Shared by the CLI and the sign-up page.
 */

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

// Deliberately simple (one @, a dot in the domain, no spaces): the verification mail is the real check.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkEmail(email: string): string | null {
  if (email.length > 254) return 'Email must be at most 254 characters';
  if (!EMAIL_PATTERN.test(email)) return 'Enter an email address like name@example.com';
  return null;
}

export function checkName(name: string): string | null {
  if (name.trim().length === 0) return 'Name must not be empty';
  if (name.length > 100) return 'Name must be at most 100 characters';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'Name must not contain control characters';
  return null;
}

export function checkAvatarUrl(url: string): string | null {
  if (url.length > 2000) return 'Avatar URL must be at most 2000 characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Avatar URL must be an absolute https:// URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'Avatar URL must be an https:// URL';
  return null;
}

/** NIST SP 800-63B §5.1.1.2: length over composition rules, and no password that is the email itself. */
export function checkPassword(password: string, email?: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Password must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Password must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (new Set(password).size < 4) return 'Password must not be one character repeated; use a few words or a passphrase';
  if (email && password.toLowerCase() === email.trim().toLowerCase()) return 'Password must not be your email address';
  return null;
}
