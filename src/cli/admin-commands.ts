/**
 * `latch admin …`: who may open the admin console (/admin; README "Admin console"). `grant` and `revoke` change
 * one account's admin role, each recorded as an audit event; `list` shows the administrators.
 */
import { parseArgs } from 'node:util';
import { recordCommandLineEvent } from '../audit/audit-log.js';
import type { Storage } from '../storage/storage.js';
import { printJson, UsageError } from './output.js';
import type { Terminal } from './terminal.js';

export const ADMIN_USAGE = `latch admin grant EMAIL           Let the account open the admin console (/admin)
latch admin revoke EMAIL          Take the admin role away
latch admin list [--json]`;

export async function runAdminCommand(args: string[], storage: Storage, terminal: Terminal): Promise<void> {
  const [subcommand, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  switch (subcommand) {
    case 'grant':
    case 'revoke': {
      const email = positionals[0];
      if (!email || positionals.length > 1) throw new UsageError(`latch admin ${subcommand} needs one account's email: latch admin ${subcommand} EMAIL`);
      const user = await storage.users.findByEmail(email);
      if (!user) throw new UsageError(`No account has the email ${email}`);
      const isAdmin = subcommand === 'grant';
      if (user.isAdmin === isAdmin) {
        terminal.stdout.write(`${user.email} ${isAdmin ? 'is an administrator already' : 'is not an administrator'}; nothing changed.\n`);
        return;
      }
      await storage.users.update(user.id, { isAdmin }, new Date());
      await recordCommandLineEvent(storage, { type: isAdmin ? 'user.admin.granted' : 'user.admin.revoked', userId: user.id });
      terminal.stdout.write(
        isAdmin
          ? `${user.email} is now an administrator: the admin console is at /admin once they sign in.\n`
          : `${user.email} is no longer an administrator: the admin console refuses them from their next request.\n`,
      );
      return;
    }
    case 'list': {
      const admins = (await storage.users.list()).filter((user) => user.isAdmin).map((user) => ({ id: user.id, email: user.email, name: user.name, disabled: user.disabledAt !== null }));
      if (values.json) printJson(terminal.stdout, admins);
      else if (admins.length === 0) terminal.stdout.write('No administrators. Make one with: latch admin grant EMAIL\n');
      else for (const admin of admins) terminal.stdout.write(`${admin.id}  ${admin.email}  ${admin.name}${admin.disabled ? '  (disabled)' : ''}\n`);
      return;
    }
    default:
      throw new UsageError(`Unknown command: latch admin ${subcommand ?? ''}\n\n${ADMIN_USAGE}`);
  }
}
