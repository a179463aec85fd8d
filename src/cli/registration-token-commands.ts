/**
 * `latch registration-token …`: initial access tokens for dynamic client registration (RFC 7591 §3; issue 18
 * item 3; docs/protocol-decisions.md "Dynamic client registration"). A token is shown once, when it is made;
 * only its hash is stored. It works while LATCH_REGISTRATION=token, until it expires or is revoked.
 */
import { parseArgs } from 'node:util';
import { recordCommandLineEvent } from '../audit/audit-log.js';
import { generateIdentifier, generateSecret, hashSecret, SECRET_PREFIX } from '../crypto/secrets.js';
import type { RegistrationToken, Storage } from '../storage/storage.js';
import { printFields, printJson, UsageError } from './output.js';
import type { Terminal } from './terminal.js';

export const REGISTRATION_TOKEN_USAGE = `latch registration-token create [--note TEXT] [--expires-in-days N] [--json]
latch registration-token list [--json]
latch registration-token revoke ID`;

const MAX_DAYS = 3650;

function state(token: RegistrationToken, now: Date): 'live' | 'expired' | 'revoked' {
  if (token.revokedAt !== null) return 'revoked';
  return token.expiresAt !== null && token.expiresAt <= now ? 'expired' : 'live';
}

function describe(token: RegistrationToken, now: Date) {
  return {
    id: token.id,
    note: token.note,
    state: state(token, now),
    created_at: token.createdAt.toISOString(),
    expires_at: token.expiresAt?.toISOString() ?? null,
    revoked_at: token.revokedAt?.toISOString() ?? null,
  };
}

export async function runRegistrationTokenCommand(args: string[], storage: Storage, settings: { registration: 'off' | 'token' | 'open' }, terminal: Terminal): Promise<void> {
  const [subcommand, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { note: { type: 'string' }, 'expires-in-days': { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const now = new Date();
  switch (subcommand) {
    case 'create': {
      const note = (values.note ?? '').trim();
      if (note.length > 200) throw new UsageError('--note must be at most 200 characters');
      const daysText = values['expires-in-days'];
      if (daysText !== undefined && (!/^\d+$/.test(daysText) || Number(daysText) < 1 || Number(daysText) > MAX_DAYS)) {
        throw new UsageError(`--expires-in-days must be a whole number of days from 1 to ${MAX_DAYS}`);
      }
      const token = generateSecret(SECRET_PREFIX.initialAccessToken);
      const id = `rt_${generateIdentifier(9)}`;
      const expiresAt = daysText === undefined ? null : new Date(now.getTime() + Number(daysText) * 86400 * 1000);
      await storage.registrationTokens.insert({ id, tokenHash: hashSecret(token), note: note || 'no note', createdAt: now, expiresAt });
      await recordCommandLineEvent(storage, { type: 'registration_token.created', details: { token_id: id, expires_at: expiresAt?.toISOString() ?? null } });
      const result = { id, token, note: note || 'no note', expires_at: expiresAt?.toISOString() ?? null };
      if (values.json) printJson(terminal.stdout, result);
      else printFields(terminal.stdout, result);
      terminal.stderr.write(
        `\nThe token is shown only now: hand it to whoever registers the app; they send it as Authorization: Bearer <token> to POST /oauth2/register.\n` +
          (settings.registration === 'token' ? '' : `Note: LATCH_REGISTRATION is ${settings.registration}; the token is accepted only when it is token.\n`),
      );
      return;
    }
    case 'list': {
      const tokens = (await storage.registrationTokens.list()).map((token) => describe(token, now));
      if (values.json) printJson(terminal.stdout, tokens);
      else if (tokens.length === 0) terminal.stdout.write('No registration tokens.\n');
      else for (const token of tokens) terminal.stdout.write(`${token.id}  ${token.state}  ${token.expires_at ?? 'no expiry'}  ${token.note}\n`);
      return;
    }
    case 'revoke': {
      const id = positionals[0];
      if (!id) throw new UsageError('latch registration-token revoke needs an ID (see latch registration-token list)');
      if (!(await storage.registrationTokens.revoke(id, now))) throw new UsageError(`No live registration token with id ${id}`);
      await recordCommandLineEvent(storage, { type: 'registration_token.revoked', details: { token_id: id } });
      terminal.stdout.write(`Revoked registration token ${id}: registrations with it are refused from now on; clients it registered stay.\n`);
      return;
    }
    default:
      throw new UsageError(`Unknown command: latch registration-token ${subcommand ?? ''}\n\n${REGISTRATION_TOKEN_USAGE}`);
  }
}
