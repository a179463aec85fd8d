/**
 * `latch doctor [--workers N|auto] [--json]`: checks this installation and prints each finding with its fix
 * (README "latch doctor"). It changes nothing: the configuration is read without generating a secret, the
 * database through a connection that cannot write (storage/database-inspection.ts), pending migrations are
 * reported and never applied, SMTP and Redis are only greeted. It runs beside a serving Latch. Exit status 1
 * when any finding is a problem, else 0 (warnings included); 2 for a usage error.
 */
import { parseArgs } from 'node:util';
import { ConfigError, issuerIsLocal, loadConfig, type Config } from '../../config.js';
import { createKeyEncryption } from '../../crypto/key-encryption.js';
import { signingKeyState } from '../../keys/signing-keys.js';
import {
  countExpiredRows,
  KNOWN_MIGRATIONS,
  openDatabaseForInspection,
  readAppliedMigrations,
  readPostgresClock,
  readPostgresConnectionLimits,
  readSigningKeys,
  type InspectedDatabase,
} from '../../storage/database-inspection.js';
import { sqlitePath } from '../../storage/database-url.js';
import { printJson } from '../output.js';
import type { Terminal } from '../terminal.js';
import { parseWorkerCount } from '../serve.js';
import { checkClockSkew, checkConnections, checkDatabase, checkMigrations } from './database-checks.js';
import { checkMail, checkRedis } from './deployment-checks.js';
import { findingsAsJson, formatFindings, exitStatusOf, type Finding } from './finding.js';
import { checkExpiredRows, checkKeysOpenWithSecret, checkSigningKeys, expiryCutoffs } from './housekeeping-checks.js';
import { checkIssuer } from './issuer-checks.js';
import { databaseLabel, probeRedis, probeSmtp, readSecretSource, reasonOf, serviceAddress } from './probes.js';
import { checkSecret } from './secret-checks.js';

export const DOCTOR_USAGE = `latch doctor [--workers N|auto] [--json]
                                  Check this installation read-only (configuration, secret, database, migrations,
                                  clock, connections, signing keys, Redis, SMTP, expired rows) and print each
                                  finding with its fix; exit status 1 on a problem. --workers: the Latch
                                  processes on this database in all (default LATCH_WORKERS, else 1)`;

/**
 * Stands in for LATCH_SECRET while the rest of the configuration is validated: config.ts would otherwise
 * generate data/secret, a write. The real secret is judged on its own (secret-checks.ts) and never used here.
 */
const PLACEHOLDER_SECRET = 'latch-doctor-validates-the-rest-of-the-configuration';

interface Installation {
  database: string;
  issuer: string;
  processes: number;
  /** Where the number of processes came from, in words. */
  processes_from: string;
}

export async function runDoctorCommand(args: string[], terminal: Terminal): Promise<number> {
  const { env } = terminal;
  const { values } = parseArgs({ args, options: { workers: { type: 'string' }, json: { type: 'boolean', default: false } } });
  const workers = values.workers ?? env.LATCH_WORKERS;
  const processes = parseWorkerCount(workers);
  const processesFrom = values.workers !== undefined ? `--workers ${values.workers}` : env.LATCH_WORKERS ? `LATCH_WORKERS=${env.LATCH_WORKERS}` : 'one process: neither --workers nor LATCH_WORKERS';
  const { findings, installation } = await diagnose(env, processes, processesFrom);
  if (values.json) {
    printJson(terminal.stdout, { installation, ...findingsAsJson(findings) });
  } else {
    const header = installation
      ? `Latch doctor: ${installation.database}, issuer ${installation.issuer}, ${installation.processes} process${installation.processes === 1 ? '' : 'es'} (${installation.processes_from})\n\n`
      : 'Latch doctor\n\n';
    terminal.stdout.write(header + formatFindings(findings));
  }
  return exitStatusOf(findings);
}

/** A configuration problem as loadConfig words it, with any credentials of a URL it quotes removed. */
function configurationProblem(problem: string): Finding {
  return { check: 'configuration', level: 'problem', title: reasonOf({ message: problem }), fix: 'Correct it in the environment: `latch serve` refuses to start until then.' };
}

async function diagnose(env: NodeJS.ProcessEnv, processes: number, processesFrom: string): Promise<{ findings: Finding[]; installation: Installation | null }> {
  let config: Config;
  try {
    config = loadConfig({ ...env, LATCH_SECRET: PLACEHOLDER_SECRET });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const findings = error.problems.map(configurationProblem);
    const databaseUrl = env.LATCH_DATABASE_URL || 'sqlite:data/latch.db';
    if (/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) findings.push(...checkSecret(readSecretSource(env, databaseUrl)));
    return { findings, installation: null };
  }
  const installation = { database: databaseLabel(config.databaseUrl, config.databaseSchema), issuer: config.issuer, processes, processes_from: processesFrom };
  const secretSource = readSecretSource(env, config.databaseUrl);
  const secret = secretSource.kind === 'environment' || secretSource.kind === 'file' ? secretSource.secret : null;
  const dialect = sqlitePath(config.databaseUrl) === null ? 'postgres' : 'sqlite';

  // The services are probed while the database is read: each may take its whole timeout.
  const redisProbe = config.redisUrl ? probeRedis(config.redisUrl) : Promise.resolve(null);
  const smtpProbe = config.smtpUrl ? probeSmtp(config.smtpUrl) : Promise.resolve(null);
  const databaseFindings = await inspectDatabase(config, processes, secret);
  return {
    installation,
    findings: [
      ...checkIssuer(config),
      ...checkSecret(secretSource),
      ...databaseFindings,
      ...checkRedis({ processes, dialect, redisAddress: config.redisUrl ? serviceAddress(config.redisUrl, 6379) : null, redis: await redisProbe }),
      ...checkMail({
        smtpAddress: config.smtpUrl ? serviceAddress(config.smtpUrl, config.smtpUrl.startsWith('smtps:') ? 465 : 587) : null,
        smtp: await smtpProbe,
        development: issuerIsLocal(config.issuer) || config.developmentMode,
      }),
    ],
  };
}

async function inspectDatabase(config: Config, processes: number, secret: string | null): Promise<Finding[]> {
  const label = databaseLabel(config.databaseUrl, config.databaseSchema);
  const dialect = sqlitePath(config.databaseUrl) === null ? 'postgres' : 'sqlite';
  if (sqlitePath(config.databaseUrl) === ':memory:') return [checkDatabase({ kind: 'in-memory' })];
  let opened: InspectedDatabase | null;
  try {
    opened = openDatabaseForInspection(config.databaseUrl, { schema: config.databaseSchema, statementTimeoutMs: config.databaseStatementTimeoutMs });
  } catch (error) {
    return [checkDatabase({ kind: 'unreachable', label, dialect, reason: reasonOf(error) })];
  }
  if (!opened) return [checkDatabase({ kind: 'not-created', label })];
  const inspected = opened;
  try {
    let applied: string[] | null;
    try {
      applied = await readAppliedMigrations(inspected.db);
    } catch (error) {
      return [checkDatabase({ kind: 'unreachable', label, dialect, reason: reasonOf(error) })];
    }
    const findings: Finding[] = [checkDatabase({ kind: 'open', label }), checkMigrations(applied, KNOWN_MIGRATIONS)];
    const { db } = inspected;
    // A check that fails on its own (a statement timeout, a missing privilege) is reported; the others go on.
    const attempt = async (check: string, run: () => Promise<Finding | Finding[] | null>) => {
      try {
        const result = await run();
        if (result) findings.push(...(Array.isArray(result) ? result : [result]));
      } catch (error) {
        findings.push({ check, level: 'warning', title: `Could not check ${check}: ${reasonOf(error)}`, fix: 'Run latch doctor again; if it persists, check the database user\'s privileges.' });
      }
    };
    await attempt('clock', async () => checkClockSkew(inspected.dialect === 'sqlite' ? 'same-machine' : await readPostgresClock(db)));
    if (inspected.dialect === 'postgres') {
      await attempt('connections', async () =>
        checkConnections(await readPostgresConnectionLimits(db), { processes, poolSize: config.databasePoolSize, listening: config.cacheMaxStalenessMs > 0 }),
      );
    }
    // Tables of every migration are needed to read keys and expiries; an unmigrated database has none to judge.
    const migrated = applied;
    if (migrated !== null && KNOWN_MIGRATIONS.every((name) => migrated.includes(name))) {
      const now = new Date();
      await attempt('expired-rows', async () => checkExpiredRows(await countExpiredRows(db, expiryCutoffs(now))));
      await attempt('signing-keys', async () => {
        const keys = await readSigningKeys(db);
        const published = keys.filter((key) => signingKeyState(key, now) !== 'retired');
        const undecryptable = secret === null ? [] : published.filter((key) => !opens(secret, key.privateJwkEncrypted, key.kid)).map((key) => key.kid);
        const opened = checkKeysOpenWithSecret(published.length, undecryptable, secret !== null);
        return [checkSigningKeys(keys, now), ...(opened ? [opened] : [])];
      });
    }
    return findings;
  } finally {
    await inspected.close();
  }
}

/** Whether the secret decrypts a stored private key (the plaintext is dropped at once). */
function opens(secret: string, encrypted: string, kid: string): boolean {
  try {
    createKeyEncryption(secret).decrypt(encrypted, kid);
    return true;
  } catch {
    return false;
  }
}
