/** The bench's report: a table for the terminal and BENCHMARKS.md, with every figure as Latch, peer, ratio. */

/** The issue's targets (ratios in one run on the 2-core machine). */
export const TARGETS = {
  c: { vsPeer: 4, vsCeiling: 0.35 },
  d1: { vsPeer: 3, vsCeiling: 0.2 },
  d2: { vsPeer: 1.5 },
  d3: { vsPeer: 3 },
  e: { vsPeer: 3 },
  g: { vsPeer: 3 },
  h: { vsPeer: 4 },
};
export const SIGN_IN_TARGET_SHARE_OF_ARGON2 = 0.85;
/** Issue 15: Latch on PostgreSQL against the peer in memory, same run; p99 at half the peer's maximum. */
export const POSTGRES_TARGETS = { c: 2, d1: 1, e: 1 };
export const POSTGRES_FIXED_LOAD_P99_TARGET_MS = 10;
export const FIXED_LOAD_P99_TARGET_MS = 5;
/** memory.mjs writes its section of BENCHMARKS.md between these; run.mjs keeps it when it rewrites the file. */
export const MEMORY_START = '<!-- bench:memory:start -->';
export const MEMORY_END = '<!-- bench:memory:end -->';

/** The memory section of an existing BENCHMARKS.md, or '' when there is none. */
export function memorySection(markdown) {
  const start = markdown.indexOf(MEMORY_START);
  const end = markdown.indexOf(MEMORY_END);
  return start >= 0 && end > start ? markdown.slice(start, end + MEMORY_END.length) : '';
}

/**
 * The heading from which BENCHMARKS.md is not run.mjs's: everything from it to the end (figures measured by
 * hand, with compare.mjs or backup-under-load.mjs, "Design choices, measured" whose headings source comments
 * cite, and memory.mjs's section) is kept as it is when run.mjs rewrites the file. renderMarkdown never writes
 * this heading.
 */
export const MEASURED_SEPARATELY = '## Measured separately';

/**
 * What a rewrite of BENCHMARKS.md keeps from the `existing` file: everything from the MEASURED_SEPARATELY heading
 * on, and the memory section wherever it is (files written before the heading existed had it at the end).
 */
export function keptSections(existing) {
  const at = existing.search(/^## Measured separately[ \t]*$/m);
  const kept = at >= 0 ? existing.slice(at).trimEnd() : '';
  const memory = memorySection(existing);
  return memory && !kept.includes(memory) ? [kept, memory].filter(Boolean).join('\n\n') : kept;
}

/** BENCHMARKS.md as run.mjs writes it: its `generated` report, then what it keeps of the `existing` file (or ''). */
export function rewriteBenchmarks(generated, existing) {
  const kept = keptSections(existing);
  return kept ? `${generated}\n${kept}\n` : generated;
}

const fmtRate = (v) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : '–');
const fmtMs = (v) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) : '–');
const fmtRatio = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');
const fmtCpu = (v) => (Number.isFinite(v) ? v.toFixed(3) : '–');
const rateWithRange = (s) => (s ? `${fmtRate(s.median)} (${fmtRate(s.min)}–${fmtRate(s.max)})` : '–');
const msWithRange = (s) => (s ? `${fmtMs(s.median)} (${fmtMs(s.min)}–${fmtMs(s.max)})` : '–');

function verdict(value, target, higherIsBetter = true) {
  if (!Number.isFinite(value)) return 'not measured';
  const met = higherIsBetter ? value >= target : value < target;
  return met ? 'met' : 'MISSED';
}

/** Rows of the main table, one per scenario, with the derived ratios. */
export function scenarioRows(report) {
  const ceiling = report.machine.ceiling;
  return report.scenarios.map((entry) => {
    const latch = entry.runs.latch;
    const peer = entry.runs.peer;
    const bare = entry.runs.bare;
    const own = latch?.rps ? latch : bare;
    const ratio = latch?.rps && peer?.rps ? latch.rps.median / peer.rps.median : NaN;
    // Only request rates compare with the ceiling; a flow or a sign-in is many requests or mostly hashing.
    const toCeiling = own?.rps && ceiling && entry.unit === 'req/s' ? own.rps.median / ceiling : NaN;
    return { entry, latch, peer, bare, ratio, toCeiling };
  });
}

export function targetChecks(report) {
  const checks = [];
  const rows = scenarioRows(report);
  for (const { entry, ratio, toCeiling } of rows) {
    const target = TARGETS[entry.id];
    if (!target) continue;
    checks.push({ what: `(${entry.id}) ${entry.title}: Latch / peer ≥ ${target.vsPeer}`, value: fmtRatio(ratio), verdict: verdict(ratio, target.vsPeer) });
    if (target.vsCeiling) checks.push({ what: `(${entry.id}) ${entry.title}: Latch / bare ceiling ≥ ${target.vsCeiling}`, value: fmtRatio(toCeiling), verdict: verdict(toCeiling, target.vsCeiling) });
  }
  const signIns = report.scenarios.find((s) => s.id === 'f')?.runs.latch?.rps?.median;
  const argon2 = report.argon2?.perSecond.median;
  if (signIns !== undefined || argon2 !== undefined) {
    const share = signIns / argon2;
    checks.push({ what: `(f) sign-ins / argon2id alone ≥ ${SIGN_IN_TARGET_SHARE_OF_ARGON2 * 100}%`, value: Number.isFinite(share) ? `${(share * 100).toFixed(0)}%` : '–', verdict: verdict(share, SIGN_IN_TARGET_SHARE_OF_ARGON2) });
  }
  for (const { entry, ratio } of postgresRows(report)) {
    const target = POSTGRES_TARGETS[entry.id];
    if (target) checks.push({ what: `(${entry.id}) ${entry.title}: Latch on PostgreSQL / peer ≥ ${target}`, value: fmtRatio(ratio), verdict: verdict(ratio, target) });
  }
  for (const fixed of report.fixedLoad ?? []) {
    const p99 = fixed.runs?.latchpg?.p99?.median;
    if (p99 === undefined) continue;
    const floor = fixed.runs?.bare?.p99?.median;
    const value = `${fmtMs(p99)} ms${Number.isFinite(floor) ? ` (bare server at the same rate: ${fmtMs(floor)} ms)` : ''}`;
    checks.push({ what: `(${fixed.id}) on PostgreSQL: p99 at ${fixed.ratePerSecond}/s (50% of the peer's maximum) < ${POSTGRES_FIXED_LOAD_P99_TARGET_MS} ms`, value, verdict: verdict(p99, POSTGRES_FIXED_LOAD_P99_TARGET_MS, false) });
  }
  for (const w of report.postgresWorkers?.scenarios ?? []) {
    const ratio = w.workers.median / w.single.median;
    checks.push({ what: `(${w.id}) on PostgreSQL: --workers 2 / one process > 1`, value: fmtRatio(ratio), verdict: Number.isFinite(ratio) ? (ratio > 1 ? 'met' : 'MISSED') : 'not measured' });
  }
  for (const fixed of report.fixedLoad ?? []) {
    const p99 = fixed.runs?.latch?.p99?.median;
    // The verdict is against the issue's 5 ms as it stands; the floor (the bare server at the same rate, in the
    // same run) is shown beside it because this machine and load client alone can come near that.
    const floor = fixed.runs?.bare?.p99?.median;
    const value = `${fmtMs(p99)} ms${Number.isFinite(floor) ? ` (bare server at the same rate: ${fmtMs(floor)} ms)` : ''}`;
    checks.push({ what: `(${fixed.id}) p99 at ${fixed.ratePerSecond}/s (50% of the peer's maximum) < ${FIXED_LOAD_P99_TARGET_MS} ms`, value, verdict: verdict(p99, FIXED_LOAD_P99_TARGET_MS, false) });
  }
  return checks;
}

/** The scenarios Latch on PostgreSQL ran (or was skipped in), with its ratio to the peer. */
export function postgresRows(report) {
  return report.scenarios
    .filter((entry) => entry.runs.latchpg)
    .map((entry) => {
      const pg = entry.runs.latchpg;
      const peer = entry.runs.peer;
      return { entry, pg, peer, sqlite: entry.runs.latch, ratio: pg?.rps && peer?.rps ? pg.rps.median / peer.rps.median : NaN };
    });
}

const POSTGRES_HEADERS = ['scenario', 'unit', 'Latch on PostgreSQL median (min–max)', 'peer', 'PostgreSQL/peer', 'Latch on SQLite', 'p50 / p99 ms', 'CPU ms/req Latch + PostgreSQL', 'Latch / PostgreSQL busy (% of a core)', 'non-2xx'];

function postgresTableRows(report) {
  return postgresRows(report).map(({ entry, pg, peer, sqlite, ratio }) =>
    pg.skipped
      ? [`(${entry.id}) ${entry.title}`, entry.unit, `skipped: ${pg.skipped}`, '–', '–', '–', '–', '–', '–', '–']
      : [
          `(${entry.id}) ${entry.title}`,
          entry.unit,
          rateWithRange(pg.rps),
          fmtRate(peer?.rps?.median),
          fmtRatio(ratio),
          fmtRate(sqlite?.rps?.median),
          `${fmtMs(pg.p50?.median)} / ${fmtMs(pg.p99?.median)}`,
          `${fmtCpu(pg.cpuMsPerRequest?.median)} + ${fmtCpu(pg.postgresCpuMsPerRequest?.median)}`,
          `${pg.serverCpuPercent ? pg.serverCpuPercent.median.toFixed(0) : '–'} / ${pg.postgresCpuPercent ? pg.postgresCpuPercent.median.toFixed(0) : '–'}`,
          pg.errors ?? '–',
        ],
  );
}

function postgresFixedRows(report) {
  return (report.fixedLoad ?? [])
    .filter((fixed) => fixed.runs?.latchpg)
    .map((fixed) => {
      const { latchpg, peer, bare } = fixed.runs;
      return [`(${fixed.id}) ${fixed.title}`, fixed.ratePerSecond, fmtRate(latchpg.rps?.median), `${fmtMs(latchpg.p50?.median)} / ${msWithRange(latchpg.p99)}`, msWithRange(peer?.p99), bare ? msWithRange(bare.p99) : '–', latchpg.errors ?? '–'];
    });
}
const POSTGRES_FIXED_HEADERS = ['scenario', 'offered/s', 'achieved', 'p50 / p99 ms (min–max)', 'peer p99 ms', 'floor p99 ms', 'non-2xx'];

function postgresWorkerRows(report) {
  return report.postgresWorkers.scenarios.map((w) => [
    `(${w.id}) ${w.title}`,
    rateWithRange(w.single),
    rateWithRange(w.workers),
    fmtRatio(w.workers.median / w.single.median),
    msWithRange(w.p99),
    `${fmtCpu(w.cpuMsPerRequest?.median)} + ${fmtCpu(w.postgresCpuMsPerRequest?.median)}`,
  ]);
}
const POSTGRES_WORKER_HEADERS = ['scenario', 'one process req/s', '--workers 2 req/s', 'ratio', 'p99 ms (workers)', 'CPU ms/req Latch + PostgreSQL (workers)'];

/** The PostgreSQL section's lines (markdown or terminal tables through `render`). */
function postgresSection(report, render) {
  const rows = postgresTableRows(report);
  if (rows.length === 0) return [];
  const lines = [render(POSTGRES_HEADERS, rows), ''];
  const fixed = postgresFixedRows(report);
  if (fixed.length) lines.push(render(POSTGRES_FIXED_HEADERS, fixed), '');
  if (report.postgresWorkers?.scenarios.length) lines.push(render(POSTGRES_WORKER_HEADERS, postgresWorkerRows(report)), '');
  return lines;
}

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function mainTableRows(report) {
  return scenarioRows(report).map(({ entry, latch, peer, bare, ratio, toCeiling }) => {
    const own = latch?.rps ? latch : bare;
    const ownName = latch ? (latch.skipped ? `skipped` : rateWithRange(latch.rps)) : bare ? rateWithRange(bare.rps) : '–';
    return [
      `(${entry.id}) ${entry.title}`,
      entry.unit,
      ownName,
      peer ? rateWithRange(peer.rps) : '–',
      fmtRatio(ratio),
      fmtRatio(toCeiling),
      `${fmtMs(own?.p50?.median)} / ${fmtMs(peer?.p50?.median)}`,
      `${fmtMs(own?.p99?.median)} / ${fmtMs(peer?.p99?.median)}`,
      `${fmtCpu(own?.cpuMsPerRequest?.median)} / ${fmtCpu(peer?.cpuMsPerRequest?.median)}`,
      `${own?.errors ?? '–'} / ${peer?.errors ?? '–'}`,
    ];
  });
}

const MAIN_HEADERS = ['scenario', 'unit', 'Latch (or bare) median (min–max)', 'peer median (min–max)', 'Latch/peer', 'Latch/ceiling', 'p50 ms L/P', 'p99 ms L/P', 'CPU ms/req L/P', 'non-2xx L/P'];

export function renderTerminal(report) {
  const m = report.machine;
  const parts = [
    `Latch benchmark — ${m.date}, Node ${m.node}, ${m.cpus} cores (${m.cpuModel}), ${(m.memoryBytes / 2 ** 30).toFixed(1)} GiB, ` +
      `${m.durationSeconds} s × ${m.repeats} runs per server, ${m.connections} connections; peer node-oidc-provider ${m.peerVersion}`,
    '',
    table(MAIN_HEADERS, mainTableRows(report)),
  ];
  if (report.fixedLoad?.length) {
    parts.push('', 'Fixed offered load (50% of the peer\'s maximum); floor = the bare server at the same rate:');
    parts.push(table(FIXED_HEADERS, fixedRows(report)));
  }
  if (report.argon2) parts.push('', `argon2id alone: ${rateWithRange(report.argon2.perSecond)} verifications/s (thread pool ${report.argon2.threadPoolSize})`);
  if (report.workers) parts.push('', table(['scenario', 'one process', '--workers 2', 'ratio', 'p99 ms (workers)'], workerRows(report)));
  const postgres = postgresSection(report, table);
  if (postgres.length) parts.push('', `Latch on PostgreSQL ${report.postgres?.version ?? ''} (same machine):`, ...postgres);
  if (report.clientCheck) parts.push('', `load client check on the bare server: own client ${fmtRate(report.clientCheck.ownClientRps)} req/s, autocannon ${fmtRate(report.clientCheck.autocannonRps)} req/s`);
  parts.push('', table(['target', 'value', 'verdict'], targetChecks(report).map((c) => [c.what, c.value, c.verdict])));
  const notes = [...(report.notes ?? []), ...report.scenarios.flatMap((s) => s.notes.map((n) => `(${s.id}) ${n}`))];
  if (notes.length) parts.push('', 'Notes:', ...notes.map((n) => `  - ${n}`));
  return parts.join('\n');
}

const FIXED_HEADERS = ['scenario', 'offered/s', 'achieved L/P/floor', 'p50 ms L/P', 'p99 ms L/P (min–max)', 'floor p50 / p99 ms (min–max)', 'non-2xx L/P'];

/** Rows of the fixed-load table; results written before the bare server ran there have '–' for the floor. */
function fixedRows(report) {
  return (report.fixedLoad ?? []).map((fixed) => {
    const { latch, peer, bare } = fixed.runs ?? {};
    return [
      `(${fixed.id}) ${fixed.title}`,
      fixed.ratePerSecond,
      `${fmtRate(latch?.rps?.median)} / ${fmtRate(peer?.rps?.median)} / ${fmtRate(bare?.rps?.median)}`,
      `${fmtMs(latch?.p50?.median)} / ${fmtMs(peer?.p50?.median)}`,
      `${msWithRange(latch?.p99)} / ${msWithRange(peer?.p99)}`,
      bare ? `${fmtMs(bare.p50?.median)} / ${msWithRange(bare.p99)}` : '–',
      `${latch?.errors ?? '–'} / ${peer?.errors ?? '–'}`,
    ];
  });
}

function workerRows(report) {
  return report.workers.scenarios.map((w) => [`(${w.id}) ${w.title}`, rateWithRange(w.single), rateWithRange(w.workers), fmtRatio(w.workers.median / w.single.median), msWithRange(w.p99)]);
}

/**
 * Fixed-load runs during which other programs used more than 20% of a core, with each such run's p99: a p99
 * there may be the machine's rather than the server's (the floor's own runs show how much).
 */
function noisyFixedLoadRuns(report) {
  return (report.fixedLoad ?? []).flatMap((fixed) =>
    Object.entries(fixed.runs ?? {}).flatMap(([kind, run]) => {
      const busy = (run.results ?? []).filter((r) => r.otherCpuPercent > 20);
      if (busy.length === 0) return [];
      const runs = busy.map((r) => `${r.otherCpuPercent.toFixed(0)}% (p99 ${fmtMs(r.p99)} ms)`).join(', ');
      return [`(${fixed.id}) at ${fixed.ratePerSecond}/s, ${kind}: ${busy.length} of ${run.results.length} runs with other programs using more than 20% of a core: ${runs}`];
    }),
  );
}

function markdownTable(headers, rows) {
  const escape = (cell) => String(cell).replace(/\|/g, '\\|');
  return [`| ${headers.map(escape).join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(escape).join(' | ')} |`)].join('\n');
}

export function renderMarkdown(report) {
  const m = report.machine;
  const lines = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (bench/run.mjs). Latch, [node-oidc-provider](https://github.com/panva/node-oidc-provider) (the peer) and a bare',
    '`node:http` server run as separate processes on one machine, in one run; the load client is another process. Every figure is the',
    'median of the runs, with min–max; ratios are Latch / peer and Latch / bare ceiling measured in the same run.',
    '',
    `- Date: ${m.date}`,
    `- Node: ${m.node}; peer: oidc-provider ${m.peerVersion}`,
    `- Machine: ${m.cpus} cores (${m.cpuModel}), ${(m.memoryBytes / 2 ** 30).toFixed(1)} GiB memory; load average at the end ${m.loadAverageAtEnd.map((l) => l.toFixed(2)).join(' ')}`,
    `- Load: ${m.connections} keep-alive connections, ${m.durationSeconds} s per run, ${m.repeats} runs per server alternating Latch and the peer, after a warm-up of ${m.warmupSeconds ?? "a few"} s per server and scenario`,
    '- Latch: `latch serve` on a fresh SQLite file with the shipped settings (WAL, synchronous=NORMAL, log level info; its log goes to /dev/null)',
    '- Peer: one confidential client (client_secret_basic), routes at /oauth2/*, in-memory adapter whose store never evicts; a fresh peer process for each scenario and before each fixed-load scenario (warmed up at its rate), so that no scenario meets a peer slowed by what the ones before gave it',
    '- Latency: p50 and p99 from every response (not a histogram); CPU per request from /proc/<pid>/stat (user + system)',
    '',
    '## Throughput and latency at saturation',
    '',
    markdownTable(MAIN_HEADERS, mainTableRows(report)),
    '',
  ];
  if (report.fixedLoad?.length) {
    lines.push('## Latency at a fixed offered load (50% of the peer\'s maximum)', '', markdownTable(FIXED_HEADERS, fixedRows(report)), '');
    const settle = report.machine.fixedLoadSettleSeconds;
    lines.push(
      `Open loop: requests are sent on a fixed schedule and latency counts from the scheduled time, so queueing is not hidden.${settle ? ` Each run offers its rate for ${settle} s before the ${report.machine.durationSeconds} s it records (the server has just sat idle while the next pool was minted).` : ''}`,
    );
    lines.push(
      'The floor is the bare `node:http` server (a fixed small JSON, no work) at the same offered rate, in the same run, alternating with',
      'Latch and the peer: the latency this machine and load client add on their own (timers, scheduling, two cores shared by the client',
      'and the server). A server\'s p99 near the floor is mostly the machine\'s; the p99 target is still judged against its 5 ms as stated.',
      '',
    );
  }
  if (report.argon2) {
    lines.push('## Sign-ins and argon2id alone', '', `argon2id alone, at Latch's shipped parameters (m=${report.argon2.options.memoryCost} KiB, t=${report.argon2.options.timeCost}, p=${report.argon2.options.parallelism}), ${m.connections} in flight, thread pool ${report.argon2.threadPoolSize}: ${rateWithRange(report.argon2.perSecond)} verifications/s.`, '');
  }
  if (report.workers) {
    lines.push('## One process and `--workers 2`', '', markdownTable(['scenario', 'one process req/s', '--workers 2 req/s', 'ratio', 'p99 ms (workers)'], workerRows(report)), '');
  }
  const postgres = postgresSection(report, markdownTable);
  if (postgres.length) {
    lines.push(
      '## Latch on PostgreSQL',
      '',
      `\`latch serve\` with the shipped settings (pool of 10, caches kept truthful by LISTEN/NOTIFY with a staleness bound of 1000 ms) on a fresh database of the local PostgreSQL ${report.postgres?.version ?? ''} (synchronous_commit ${report.postgres?.synchronousCommit ?? '?'}, as the server is configured), in the same run and the same alternation as Latch on SQLite and the peer. PostgreSQL shares the machine: its CPU is that of its backends for Latch's database and its WAL writer, background writer and checkpointer, from /proc, per request beside Latch's own. Fixed load: the same offered rates as the table above.`,
      '',
      ...postgres,
    );
  }
  lines.push('## Targets', '', markdownTable(['target', 'value', 'verdict'], targetChecks(report).map((c) => [c.what, c.value, c.verdict])), '');
  if (report.clientCheck) {
    lines.push(`Load client check: on the bare server the bench's own client reached ${fmtRate(report.clientCheck.ownClientRps)} req/s and autocannon ${fmtRate(report.clientCheck.autocannonRps)} req/s.`, '');
  }
  const notes = [...(report.notes ?? []), ...report.scenarios.flatMap((s) => s.notes.map((n) => `(${s.id}) ${n}`))];
  const noisy = [
    ...report.scenarios.flatMap((s) => Object.entries(s.runs).filter(([, r]) => r.otherCpuPercent?.max > 20).map(([k, r]) => `(${s.id}) ${k}: up to ${r.otherCpuPercent.max.toFixed(0)}% of a core used by other programs during a run`)),
    ...noisyFixedLoadRuns(report),
  ];
  if (notes.length || noisy.length) lines.push('## Notes', '', ...[...notes, ...noisy].map((n) => `- ${n}`), '');
  return `${lines.join('\n')}\n`;
}
