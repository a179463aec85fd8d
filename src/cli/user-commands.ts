/** `latch user …`: create and list user accounts (DESIGN "CLI"). */
import { parseArgs } from 'node:util';
import { createUserAccount } from '../accounts/user-accounts.js';
import type { Storage } from '../storage/storage.js';
import { printFields, printJson, UsageError } from './output.js';
import { readStdin } from './read-stdin.js';

export const USER_USAGE = `latch user create --email E --name N [--avatar-url U] [--email-verified] --password-stdin [--json]
latch user list [--json]`;

export async function runUserCommand(args: string[], storage: Storage): Promise<void> {
  const [subcommand, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      'avatar-url': { type: 'string' },
      'email-verified': { type: 'boolean', default: false },
      'password-stdin': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  switch (subcommand) {
    case 'create': {
      if (!values.email || !values.name) throw new UsageError('latch user create needs --email and --name');
      // Passwords never go on the command line, where other users and shell history could see them.
      if (!values['password-stdin']) throw new UsageError('latch user create needs --password-stdin (the password is read from standard input)');
      const password = await readStdin();
      const user = await createUserAccount(storage, {
        email: values.email,
        name: values.name,
        avatarUrl: values['avatar-url'] ?? null,
        password,
        emailVerified: values['email-verified'],
      });
      const result = { id: user.id, email: user.email, name: user.name };
      if (values.json) printJson(result);
      else printFields(result);
      return;
    }
    case 'list': {
      const users = (await storage.users.list()).map((u) => ({ id: u.id, email: u.email, name: u.name, email_verified: u.emailVerified }));
      if (values.json) printJson(users);
      else for (const u of users) process.stdout.write(`${u.id}  ${u.email}  ${u.name}${u.email_verified ? '' : '  (unverified)'}\n`);
      return;
    }
    default:
      throw new UsageError(`Unknown command: latch user ${subcommand ?? ''}\n\n${USER_USAGE}`);
  }
}
