/**
 * Creating user accounts: checks every field, hashes the password, and inserts. Used by `latch user create`
 * and by the sign-up page.
 */
import type { Storage, User } from '../storage/storage.js';
import { checkAvatarUrl, checkEmail, checkName, checkPassword } from './account-rules.js';
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
  ) {
    super(message);
  }
}

export async function createUserAccount(storage: Storage, account: NewUserAccount, now = new Date()): Promise<User> {
  const email = account.email.trim();
  const problem =
    fieldProblem('email', checkEmail(email)) ??
    fieldProblem('name', checkName(account.name)) ??
    (account.avatarUrl ? fieldProblem('avatarUrl', checkAvatarUrl(account.avatarUrl)) : null) ??
    fieldProblem('password', checkPassword(account.password, email));
  if (problem) throw problem;

  const passwordHash = await hashPassword(account.password);
  const user = await storage.users.insert(
    { email, name: account.name.trim(), avatarUrl: account.avatarUrl || null, passwordHash, emailVerified: account.emailVerified ?? false },
    now,
  );
  if (!user) throw new AccountError('email', `An account with email ${email} already exists`);
  return user;
}

function fieldProblem(field: AccountError['field'], message: string | null): AccountError | null {
  return message === null ? null : new AccountError(field, message);
}
