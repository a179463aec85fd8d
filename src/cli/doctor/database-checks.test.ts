/**
 * The database rules of `latch doctor`, as tables: migrations (pending, unknown, none), clock skew (with the
 * round trip's uncertainty), and connections needed by every process against PostgreSQL's limit.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClockReading, ConnectionLimits } from '../../storage/database-inspection.js';
import { checkClockSkew, checkConnections, checkDatabase, checkMigrations, type ConnectionNeeds } from './database-checks.js';

const KNOWN = ['0001_a', '0002_b', '0003_c'];

describe('checkMigrations', () => {
  const rows: { situation: string; applied: string[] | null; level: string; title: RegExp }[] = [
    { situation: 'all applied', applied: KNOWN, level: 'ok', title: /All 3 migrations are applied/ },
    { situation: 'no migration table: tables come at the first start', applied: null, level: 'note', title: /no Latch tables yet/ },
    { situation: 'an older database: the later ones are named', applied: ['0001_a'], level: 'problem', title: /^2 migrations are not applied: 0002_b, 0003_c$/ },
    { situation: 'one pending', applied: ['0001_a', '0002_b'], level: 'problem', title: /^1 migration is not applied: 0003_c$/ },
    { situation: 'a newer Latch migrated it', applied: [...KNOWN, '0004_d'], level: 'problem', title: /1 migration this Latch does not know \(0004_d\)/ },
  ];
  for (const row of rows) {
    test(row.situation, () => {
      const finding = checkMigrations(row.applied, KNOWN);
      assert.equal(finding.level, row.level);
      assert.match(finding.title, row.title);
    });
  }
  test('the fix for pending migrations is latch migrate, never done by the doctor', () => {
    assert.match(checkMigrations(['0001_a'], KNOWN).fix ?? '', /Run `latch migrate`/);
  });
});

describe('checkClockSkew', () => {
  const at = (databaseOffsetMs: number, roundTripMs = 4): ClockReading => ({ localBeforeMs: 1_000_000, localAfterMs: 1_000_000 + roundTripMs, databaseMs: 1_000_000 + roundTripMs / 2 + databaseOffsetMs });
  const rows: { situation: string; reading: ClockReading | 'same-machine'; level: string; title?: RegExp }[] = [
    { situation: 'SQLite shares the clock', reading: 'same-machine', level: 'ok' },
    { situation: 'in step', reading: at(3), level: 'ok', title: /agrees with the database's: 3 ms behind/ },
    { situation: 'a second apart is still fine', reading: at(-900), level: 'ok' },
    { situation: 'five seconds fast', reading: at(-5000), level: 'warning', title: /5\.0 s ahead of the database's/ },
    { situation: 'five seconds slow', reading: at(5000), level: 'warning', title: /5\.0 s behind the database's/ },
    { situation: 'two minutes: codes fail', reading: at(120_000), level: 'problem', title: /120\.0 s behind/ },
    { situation: 'a slow round trip explains a difference it could hide', reading: at(1500, 2000), level: 'ok' },
  ];
  for (const row of rows) {
    test(row.situation, () => {
      const finding = checkClockSkew(row.reading);
      assert.equal(finding.level, row.level);
      if (row.title) assert.match(finding.title, row.title);
    });
  }
});

describe('checkConnections', () => {
  const limits = (others = 0): ConnectionLimits => ({ maxConnections: 100, reservedConnections: 3, latchConnections: 0, otherConnections: others });
  const rows: { situation: string; needs: ConnectionNeeds; others?: number; level: string; title?: RegExp; fix?: RegExp }[] = [
    { situation: 'the defaults: one process of 10 + 1 listening', needs: { processes: 1, poolSize: 10, listening: true }, level: 'ok', title: /1 process × \(10 pooled \+ 1 listening\) = 11 connections; PostgreSQL allows 97/ },
    {
      situation: 'zitadel#6755: workers × pool above max_connections',
      needs: { processes: 2, poolSize: 60, listening: true },
      level: 'problem',
      title: /2 processes × \(60 pooled \+ 1 listening\) = 122 connections; PostgreSQL allows 97 \(max_connections 100 − 3 reserved\)/,
      fix: /LATCH_DATABASE_POOL_SIZE to 47 or less/,
    },
    { situation: 'without caches there is no listening connection', needs: { processes: 4, poolSize: 24, listening: false }, level: 'warning', title: /= 96 connections, close to the limit/ },
    { situation: 'fits alone, not beside the other clients', needs: { processes: 4, poolSize: 19, listening: true }, others: 30, level: 'warning', title: /other clients hold 30 now/ },
    { situation: 'below 80 % of the limit', needs: { processes: 8, poolSize: 9, listening: false }, level: 'ok' },
    { situation: 'past 80 % of it', needs: { processes: 8, poolSize: 10, listening: true }, level: 'warning' },
  ];
  for (const row of rows) {
    test(row.situation, () => {
      const finding = checkConnections(limits(row.others), row.needs);
      assert.equal(finding.level, row.level, finding.title);
      if (row.title) assert.match(finding.title, row.title);
      if (row.fix) assert.match(finding.fix ?? '', row.fix);
    });
  }
});

describe('checkDatabase', () => {
  test('an unreachable PostgreSQL is a problem that says where to look, not a stack trace', () => {
    const finding = checkDatabase({ kind: 'unreachable', label: 'postgres://db:5432/latch', dialect: 'postgres', reason: 'connect ECONNREFUSED 10.0.0.5:5432' });
    assert.equal(finding.level, 'problem');
    assert.equal(finding.title, 'Cannot read the database postgres://db:5432/latch: connect ECONNREFUSED 10.0.0.5:5432');
    assert.match(finding.fix ?? '', /PostgreSQL runs/);
  });
  test('an embedded database not created yet is a note', () => {
    assert.equal(checkDatabase({ kind: 'not-created', label: 'sqlite:data/latch.db' }).level, 'note');
  });
});
