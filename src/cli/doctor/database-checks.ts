/**
 * The database: reachable, migrated, on time, and big enough for the connections Latch will open. Pure: the
 * readings come from storage/database-inspection.ts.
 */
import type { ClockReading, ConnectionLimits } from '../../storage/database-inspection.js';
import type { Finding } from './finding.js';

export type DatabaseState =
  | { kind: 'open'; label: string }
  /** The embedded file does not exist yet. */
  | { kind: 'not-created'; label: string }
  | { kind: 'in-memory' }
  | { kind: 'unreachable'; label: string; dialect: 'sqlite' | 'postgres'; reason: string };

export function checkDatabase(state: DatabaseState): Finding {
  switch (state.kind) {
    case 'open':
      return { check: 'database', level: 'ok', title: `The database ${state.label} answers (read only)`, fix: null };
    case 'not-created':
      return {
        check: 'database',
        level: 'note',
        title: `The embedded database ${state.label} does not exist yet: the first \`latch serve\` (or \`latch migrate\`) creates it`,
        fix: null,
      };
    case 'in-memory':
      return { check: 'database', level: 'note', title: 'LATCH_DATABASE_URL is in memory: nothing is kept across restarts, and nothing to inspect', fix: 'Use sqlite:PATH or postgres://… for anything but a test.' };
    case 'unreachable':
      return {
        check: 'database',
        level: 'problem',
        title: `Cannot read the database ${state.label}: ${state.reason}`,
        fix:
          state.dialect === 'postgres'
            ? 'Check that PostgreSQL runs and accepts connections from this machine, and the host, port, database, user and password of LATCH_DATABASE_URL (and LATCH_DATABASE_SCHEMA).'
            : 'Check the path in LATCH_DATABASE_URL, and that this user may read the file and write to its folder.',
      };
  }
}

/** `applied` null: the database has no migration table yet. `known`: every migration of this build, in order. */
export function checkMigrations(applied: readonly string[] | null, known: readonly string[]): Finding {
  if (applied === null) {
    return {
      check: 'migrations',
      level: 'note',
      title: `The database has no Latch tables yet: the first \`latch serve\` (or \`latch migrate\`) creates them (${known.length} migrations)`,
      fix: null,
    };
  }
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    return {
      check: 'migrations',
      level: 'problem',
      title: `The database has ${unknown.length} migration${unknown.length === 1 ? '' : 's'} this Latch does not know (${unknown.join(', ')}): a newer Latch migrated it`,
      fix: 'Run the Latch version that migrated it (or newer); an older one may misread its tables.',
    };
  }
  const pending = known.filter((name) => !applied.includes(name));
  if (pending.length > 0) {
    return {
      check: 'migrations',
      level: 'problem',
      title: `${pending.length} migration${pending.length === 1 ? ' is' : 's are'} not applied: ${pending.join(', ')}`,
      fix: 'Run `latch migrate` (latch serve applies them at start unless --no-migrate; until then /readyz answers 503).',
    };
  }
  return { check: 'migrations', level: 'ok', title: `All ${known.length} migrations are applied`, fix: null };
}

/**
 * Latch computes every expiry on its own clock and stores it; processes on machines whose clocks disagree see
 * codes (60 s) expire early and id_tokens issued "in the future". The database's clock stands in for the
 * others'. Beyond a second is worth fixing; beyond half a code's lifetime, codes fail.
 */
export const CLOCK_SKEW_WARNING_MS = 1000;
export const CLOCK_SKEW_PROBLEM_MS = 30_000;

export function checkClockSkew(reading: ClockReading | 'same-machine'): Finding {
  if (reading === 'same-machine') {
    return { check: 'clock', level: 'ok', title: 'The embedded database uses this machine\'s clock: no skew possible', fix: null };
  }
  // The database read its clock somewhere within the round trip: compare with the middle of it.
  const skewMs = reading.databaseMs - (reading.localBeforeMs + reading.localAfterMs) / 2;
  const uncertaintyMs = (reading.localAfterMs - reading.localBeforeMs) / 2;
  const atLeastMs = Math.max(0, Math.abs(skewMs) - uncertaintyMs);
  const amount = Math.abs(skewMs) < 1000 ? `${Math.round(Math.abs(skewMs))} ms` : `${(Math.abs(skewMs) / 1000).toFixed(1)} s`;
  const described = `${amount} ${skewMs > 0 ? 'behind' : 'ahead of'} the database's (measured to ± ${Math.ceil(uncertaintyMs)} ms)`;
  if (atLeastMs > CLOCK_SKEW_PROBLEM_MS) {
    return { check: 'clock', level: 'problem', title: `This machine's clock is ${described}: codes and tokens expire at the wrong time`, fix: 'Synchronise the clocks of this machine and the database server (NTP: chrony or systemd-timesyncd).' };
  }
  if (atLeastMs > CLOCK_SKEW_WARNING_MS) {
    return { check: 'clock', level: 'warning', title: `This machine's clock is ${described}`, fix: 'Synchronise the clocks of this machine and the database server (NTP: chrony or systemd-timesyncd).' };
  }
  return { check: 'clock', level: 'ok', title: `This machine's clock agrees with the database's: ${described}`, fix: null };
}

export interface ConnectionNeeds {
  /** Latch processes on this database, across machines. */
  processes: number;
  /** LATCH_DATABASE_POOL_SIZE. */
  poolSize: number;
  /** Each process's LISTEN connection for its caches (LATCH_CACHE_MAX_STALENESS_MS > 0; storage/postgres/notify-signal.ts). */
  listening: boolean;
}

/** Above this share of the usable connections, one more process (a deploy's overlap, a CLI command) may not fit. */
const CONNECTION_HEADROOM = 0.8;

export function checkConnections(limits: ConnectionLimits, needs: ConnectionNeeds): Finding {
  const perProcess = needs.poolSize + (needs.listening ? 1 : 0);
  const needed = needs.processes * perProcess;
  const usable = limits.maxConnections - limits.reservedConnections;
  const sum = `${needs.processes} process${needs.processes === 1 ? '' : 'es'} × (${needs.poolSize} pooled${needs.listening ? ' + 1 listening' : ''}) = ${needed} connections`;
  const capacity = `PostgreSQL allows ${usable} (max_connections ${limits.maxConnections} − ${limits.reservedConnections} reserved)`;
  const fitting = Math.max(1, Math.floor(usable / needs.processes) - (needs.listening ? 1 : 0));
  const fix = `Lower LATCH_DATABASE_POOL_SIZE to ${fitting} or less, raise max_connections in postgresql.conf (a restart), or put PgBouncer (transaction mode) in front.`;
  if (needed > usable) {
    return { check: 'connections', level: 'problem', title: `Latch may open more connections than PostgreSQL allows: ${sum}; ${capacity}`, fix };
  }
  if (needed + limits.otherConnections > usable) {
    return {
      check: 'connections',
      level: 'warning',
      title: `${sum}, and other clients hold ${limits.otherConnections} now; ${capacity}: under load, connections will be refused`,
      fix,
    };
  }
  if (needed > usable * CONNECTION_HEADROOM) {
    return { check: 'connections', level: 'warning', title: `${sum}, close to the limit: ${capacity}`, fix };
  }
  return { check: 'connections', level: 'ok', title: `${sum}; ${capacity} (${limits.latchConnections} Latch and ${limits.otherConnections} other connections open now)`, fix: null };
}
