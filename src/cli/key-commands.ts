/**
 * `latch keys …`: the id_token signing keys (keys/signing-keys.ts). Works against the same database as the
 * running servers, which pick changes up within LATCH_SIGNING_KEY_REFRESH_SECONDS.
 */
import { parseArgs } from 'node:util';
import { recordCommandLineEvent } from '../audit/audit-log.js';
import type { Config } from '../config.js';
import { createKeyEncryption } from '../crypto/key-encryption.js';
import { isSigningAlgorithm, SIGNING_ALGORITHMS, type SigningAlgorithm } from '../crypto/signing-algorithms.js';
import { retireSigningKey, rotateSigningKeys, signingKeyState } from '../keys/signing-keys.js';
import { JWKS_MAX_AGE_SECONDS } from '../oauth/jwks.js';
import type { SigningKeyRecord, Storage } from '../storage/storage.js';
import { printJson, UsageError } from './output.js';
import type { Terminal } from './terminal.js';

export const KEYS_USAGE = `latch keys list [--json]
latch keys rotate [--alg RS256|ES256|EdDSA|all] [--lead-seconds N] [--json]
latch keys retire KID`;

function describeKey(key: SigningKeyRecord, now: Date) {
  return {
    kid: key.kid,
    alg: key.alg,
    state: signingKeyState(key, now),
    created_at: key.createdAt.toISOString(),
    activates_at: key.activatesAt.toISOString(),
    deactivates_at: key.deactivatesAt?.toISOString() ?? null,
    retires_at: key.retiresAt?.toISOString() ?? null,
  };
}

export async function runKeysCommand(args: string[], storage: Storage, config: Config, terminal: Terminal): Promise<void> {
  const [subcommand, ...rest] = args;
  const now = new Date();
  if (subcommand === 'retire') {
    // The one argument is a KID, taken as it is: an RFC 7638 thumbprint in base64url starts with "-" one time
    // in 64, which an option parser would take for an option.
    const operands = rest[0] === '--' ? rest.slice(1) : rest;
    if (operands.length !== 1 || !operands[0]) throw new UsageError('latch keys retire needs one KID (see latch keys list)');
    const key = await retireSigningKey(storage, operands[0], now);
    await recordCommandLineEvent(storage, { type: 'signing_key.retired', details: { kid: key.kid, alg: key.alg } });
    terminal.stdout.write(`Retired ${key.kid} (${key.alg}): it signs nothing more, and the id_tokens it signed no longer verify once servers reload their keys.\n`);
    return;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      alg: { type: 'string', default: 'all' },
      'lead-seconds': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  switch (subcommand) {
    case 'list': {
      const keys = (await storage.signingKeys.listAll()).map((key) => describeKey(key, now));
      if (values.json) printJson(terminal.stdout, keys);
      else if (keys.length === 0) terminal.stdout.write('No signing keys yet; they are generated when the server first starts.\n');
      else for (const k of keys) terminal.stdout.write(`${k.kid}  ${k.alg.padEnd(5)}  ${k.state.padEnd(8)}  activates ${k.activates_at}${k.deactivates_at ? `  stops signing ${k.deactivates_at}` : ''}${k.retires_at ? `  retires ${k.retires_at}` : ''}\n`);
      return;
    }
    case 'rotate': {
      const algorithms: SigningAlgorithm[] =
        values.alg === 'all' ? [...SIGNING_ALGORITHMS] : isSigningAlgorithm(values.alg) ? [values.alg] : [];
      if (algorithms.length === 0) throw new UsageError(`--alg must be one of ${SIGNING_ALGORITHMS.join(', ')} or all`);
      const leadSeconds = values['lead-seconds'] === undefined ? config.signingKeyLeadSeconds : Number(values['lead-seconds']);
      if (!Number.isInteger(leadSeconds) || leadSeconds < 0 || leadSeconds > 30 * 86400) throw new UsageError('--lead-seconds must be an integer from 0 to 2592000');
      const safeLead = config.signingKeyRefreshSeconds + JWKS_MAX_AGE_SECONDS;
      if (leadSeconds < safeLead) {
        terminal.stderr.write(
          `Warning: a lead time under ${safeLead} s (key refresh ${config.signingKeyRefreshSeconds} s + JWKS cache ${JWKS_MAX_AGE_SECONDS} s) can let a client see a token before it has the key; use it for a compromised key only.\n`,
        );
      }
      const results = await rotateSigningKeys(storage, createKeyEncryption(config.secret), {
        algorithms,
        leadSeconds,
        idTokenTtlSeconds: config.idTokenTtlSeconds,
        refreshSeconds: config.signingKeyRefreshSeconds,
      }, now);
      for (const r of results) await recordCommandLineEvent(storage, { type: 'signing_key.rotated', details: { kid: r.added.kid, alg: r.added.alg, replaces: r.ended } });
      const summary = results.map((r) => ({ ...describeKey(r.added, now), replaces: r.ended, replaced_keys_retire_at: r.predecessorsRetireAt.toISOString() }));
      if (values.json) printJson(terminal.stdout, summary);
      else {
        for (const r of summary) {
          terminal.stdout.write(`${r.alg}: added ${r.kid}, published now, signs from ${r.activates_at}`);
          terminal.stdout.write(r.replaces.length ? `; ${r.replaces.join(', ')} stops signing then and leaves the JWKS at ${r.replaced_keys_retire_at}\n` : '\n');
        }
      }
      return;
    }
    default:
      throw new UsageError(`Unknown command: latch keys ${subcommand ?? ''}\n\n${KEYS_USAGE}`);
  }
}
