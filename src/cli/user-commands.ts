/**
 * `latch user …`: create, list and show user accounts, and reset a locked-out person's second factors
 * (docs/protocol-decisions.md "Command line", "Second factors and passkeys").
 */
import { parseArgs } from 'node:util';
import { recordCommandLineEvent } from '../audit/audit-log.js';
import { describeAccountFactors, resetAccountFactors } from '../accounts/second-factor/account-factors.js';
import { createUserAccount } from '../accounts/user-accounts.js';
import type { Storage } from '../storage/storage.js';
import { printFields, printJson, UsageError } from './output.js';
import type { Terminal } from './terminal.js';
import { readStdin } from './read-stdin.js';

export const USER_USAGE = `latch user create --email E --name N [--avatar-url U] [--email-verified] [--admin] --password-stdin [--json]
latch user list [--json]
latch user show EMAIL [--json]
latch user reset-mfa EMAIL [--json]`;

export async function runUserCommand(args: string[], storage: Storage, terminal: Terminal): Promise<void> {
  const [subcommand, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      'avatar-url': { type: 'string' },
      'email-verified': { type: 'boolean', default: false },
      admin: { type: 'boolean', default: false },
      'password-stdin': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  switch (subcommand) {
    case 'create': {
      if (!values.email || !values.name) throw new UsageError('latch user create needs --email and --name');
      // Passwords never go on the command line, where other users and shell history could see them.
      if (!values['password-stdin']) throw new UsageError('latch user create needs --password-stdin (the password is read from standard input)');
      const password = await readStdin(terminal);
      const user = await createUserAccount(storage, {
        email: values.email,
        name: values.name,
        avatarUrl: values['avatar-url'] ?? null,
        password,
        emailVerified: values['email-verified'],
      });
      await recordCommandLineEvent(storage, { type: 'user.created', userId: user.id });
      // --admin: may open the admin console (/admin), as `latch admin grant` would make it.
      if (values.admin) {
        await storage.users.update(user.id, { isAdmin: true }, new Date());
        await recordCommandLineEvent(storage, { type: 'user.admin.granted', userId: user.id });
      }
      const result = { id: user.id, email: user.email, name: user.name, ...(values.admin && { admin: true }) };
      if (values.json) printJson(terminal.stdout, result);
      else printFields(terminal.stdout, result);
      return;
    }
    case 'list': {
      const users = (await storage.users.list()).map((u) => ({ id: u.id, email: u.email, name: u.name, email_verified: u.emailVerified, admin: u.isAdmin, disabled: u.disabledAt !== null }));
      if (values.json) printJson(terminal.stdout, users);
      else for (const u of users) terminal.stdout.write(`${u.id}  ${u.email}  ${u.name}${u.email_verified ? '' : '  (unverified)'}${u.admin ? '  (admin)' : ''}${u.disabled ? '  (disabled)' : ''}\n`);
      return;
    }
    case 'show':
    case 'reset-mfa': {
      const email = positionals[0];
      if (!email) throw new UsageError(`latch user ${subcommand} needs the account's email: latch user ${subcommand} EMAIL`);
      const user = await storage.users.findByEmail(email);
      if (!user) throw new UsageError(`No account has the email ${email}`);
      if (subcommand === 'reset-mfa') {
        const removed = await resetAccountFactors(storage, user.id);
        await recordCommandLineEvent(storage, {
          type: 'user.second_factor.reset',
          userId: user.id,
          details: { authenticator_app: removed.authenticatorApp, recovery_codes: removed.recoveryCodes, passkeys: removed.passkeys },
        });
        const result = { id: user.id, email: user.email, authenticator_app_removed: removed.authenticatorApp, recovery_codes_removed: removed.recoveryCodes, passkeys_removed: removed.passkeys };
        if (values.json) printJson(terminal.stdout, result);
        else printFields(terminal.stdout, result);
        return;
      }
      const factors = await describeAccountFactors(storage, user.id);
      const iso = (date: Date | null) => (date ? date.toISOString() : null);
      const result = {
        id: user.id,
        email: user.email,
        name: user.name,
        email_verified: user.emailVerified,
        admin: user.isAdmin,
        disabled_at: iso(user.disabledAt),
        two_step: factors.authenticatorApp !== null,
        authenticator_app: factors.authenticatorApp && { added_at: iso(factors.authenticatorApp.addedAt), last_used_at: iso(factors.authenticatorApp.lastUsedAt) },
        recovery_codes_left: factors.recoveryCodesLeft,
        passkeys: factors.passkeys.map((passkey) => ({ name: passkey.name, added_at: iso(passkey.addedAt), last_used_at: iso(passkey.lastUsedAt), synced: passkey.synced })),
      };
      if (values.json) printJson(terminal.stdout, result);
      else
        printFields(terminal.stdout, {
          id: result.id,
          email: result.email,
          name: result.name,
          email_verified: result.email_verified,
          admin: result.admin,
          disabled: result.disabled_at ?? 'no',
          authenticator_app: result.authenticator_app ? `on (added ${result.authenticator_app.added_at}, last used ${result.authenticator_app.last_used_at ?? 'never'})` : 'off',
          recovery_codes_left: result.recovery_codes_left,
          passkeys: result.passkeys.length === 0 ? 'none' : result.passkeys.map((passkey) => `${passkey.name} (added ${passkey.added_at}, last used ${passkey.last_used_at ?? 'never'}${passkey.synced ? ', synced' : ''})`).join('; '),
        });
      return;
    }
    default:
      throw new UsageError(`Unknown command: latch user ${subcommand ?? ''}\n\n${USER_USAGE}`);
  }
}
