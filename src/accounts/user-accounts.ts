/**
 * Creating user accounts: checks every field, hashes the password, and inserts. Used by `latch user create`
 * and by the sign-up page.
 */
import type { Storage, User } from '../storage/storage.js';
import { checkAvatarUrl, emailProblem, inEnglish, nameProblem, passwordProblem, type RuleProblem } from './account-rules.js';
import { hashPassword } from './passwords.js';

export interface NewUserAccount {
  email: string;
  name: string;
  avatarUrl?: string | null;
  password: string;
  emailVerified?: boolean;
}

export class AccountError extends Error {
  constructor(
    /** The form field at fault, so a page can show the message next to it. */
    readonly field: 'email' | 'name' | 'avatarUrl' | 'password',
    message: string,
    /** The same as a message of the catalogue, for a page in the person's language (account-rules.ts). */
    readonly problem?: RuleProblem,
  ) {
    super(message);
  }
}

export async function createUserAccount(storage: Storage, account: NewUserAccount, now = new Date()): Promise<User> {
  const email = account.email.trim();
  const problem =
    fieldProblem('email', emailProblem(email)) ??
    fieldProblem('name', nameProblem(account.name)) ??
    (account.avatarUrl ? avatarProblem(checkAvatarUrl(account.avatarUrl)) : null) ??
    fieldProblem('password', passwordProblem(account.password, email));
  if (problem) throw problem;

  const passwordHash = await hashPassword(account.password);
  const user = await storage.users.insert(
    { email, name: account.name.trim(), avatarUrl: account.avatarUrl || null, passwordHash, emailVerified: account.emailVerified ?? false },
    now,
  );
  if (!user) throw new AccountError('email', `An account with email ${email} already exists`, { key: 'signUp.emailTaken' });
  return user;
}

function fieldProblem(field: AccountError['field'], problem: RuleProblem | null): AccountError | null {
  return problem === null ? null : new AccountError(field, inEnglish(problem)!, problem);
}

/** An avatar URL is given by the CLI only (the sign-up page has no such field): English. */
function avatarProblem(message: string | null): AccountError | null {
  return message === null ? null : new AccountError('avatarUrl', message);
}
