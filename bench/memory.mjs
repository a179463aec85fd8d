/**
 * `npm run bench:memory`: Latch's resident memory after issuing many access tokens through its token
 * endpoint (default one million), and the database bytes each issued token costs; the same for the peer,
 * which keeps everything in memory, unless BENCH_MEMORY_PEER=0.
 *
 * Codes are minted in batches through each server's own code path (as in run.mjs) and exchanged over HTTP by
 * 32 keep-alive connections; RSS comes from /proc/<pid>/status. The result goes to the terminal and into
 * BENCHMARKS.md between the memory markers (run.mjs keeps that section when it rewrites the file).
 *
 * Environment: BENCH_MEMORY_TOKENS (default 1000000), BENCH_MEMORY_PEER (default 1), BENCH_CONNECTIONS (32).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { buildRequest, runRequests } from './lib/http-load.mjs';
import { basicAuthorization, BENCH_DIR, ensureLatchBuilt, HOST, mintLatch, REDIRECT_URI, ROOT, setUpLatchData, startLatch } from './lib/latch.mjs';
import { rssBytes, startListeningScript, stopProcess } from './lib/processes.mjs';
import { MEMORY_END, MEMORY_START } from './lib/report.mjs';

const TOTAL = Number(process.env.BENCH_MEMORY_TOKENS ?? 1_000_000);
/** The peer's count can be set lower: it holds every token in memory, and it is the slower to fill. */
const PEER_TOTAL = Number(process.env.BENCH_MEMORY_PEER_TOKENS ?? TOTAL);
const WITH_PEER = (process.env.BENCH_MEMORY_PEER ?? '1') !== '0';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Codes live 60 seconds: a batch must be exchanged well within that on a slow machine. */
const BATCH = Number(process.env.BENCH_MEMORY_BATCH ?? 20_000);
const log = (message) => process.stderr.write(`${message}\n`);
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

function databaseBytes(dataDir) {
  return ['latch.db', 'latch.db-wal', 'latch.db-shm'].reduce((sum, name) => sum + (existsSync(join(dataDir, name)) ? statSync(join(dataDir, name)).size : 0), 0);
}

/** Checkpoints the WAL into the main file (as SQLite does on its own over time) and reads per-table sizes. */
function checkpointAndMeasure(dataDir) {
  const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
  const db = new Database(join(dataDir, 'latch.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('wal_checkpoint(TRUNCATE)');
    let tables = null;
    try {
      tables = Object.fromEntries(db.prepare('select name, sum(pgsize) as bytes from dbstat group by name order by bytes desc').all().map((r) => [r.name, r.bytes]));
    } catch {
      // dbstat is not compiled into this SQLite build.
    }
    return { fileBytes: statSync(join(dataDir, 'latch.db')).size, tables };
  } finally {
    db.close();
  }
}

async function issueTokens(server, mint, tokenRequestFor, total = TOTAL) {
  const samples = [];
  let issued = 0;
  let errors = 0;
  const started = Date.now();
  while (issued < total) {
    const count = Math.min(BATCH, total - issued);
    const codes = await mint(count);
    const result = await runRequests({
      host: HOST,
      port: server.port,
      connections: CONNECTIONS,
      durationMs: 55_000,
      next: (i) => (i < codes.length ? tokenRequestFor(codes[i]) : null),
      isOk: (response) => response.status === 200,
    });
    issued += result.requests - result.errors;
    errors += result.errors;
    if (result.errors) log(`  ${server.name}: ${result.errors} failed exchanges (${result.errorSamples[0]})`);
    if (result.requests === 0) throw new Error(`${server.name} exchanged no codes`);
    samples.push({ issued, rssBytes: rssBytes(server.pid) });
    log(`  ${server.name}: ${issued} tokens issued, RSS ${mib(samples.at(-1).rssBytes)}, ${result.rps.toFixed(0)}/s`);
  }
  return { issued, errors, samples, seconds: (Date.now() - started) / 1000 };
}

async function main() {
  ensureLatchBuilt(log);
  const workDir = mkdtempSync(join(os.tmpdir(), 'latch-memory-'));
  const report = { date: new Date().toISOString(), node: process.version, tokens: TOTAL };
  const children = [];
  try {
    const dataDir = join(workDir, 'latch');
    const setup = setUpLatchData(dataDir);
    const latch = await startLatch('Latch', dataDir);
    children.push(latch.child);
    const credentials = basicAuthorization(setup.clientId, setup.clientSecret);
    const host = `${HOST}:${latch.port}`;
    const before = checkpointAndMeasure(dataDir);
    const rssAtStart = rssBytes(latch.pid);
    log(`Latch: RSS at start ${mib(rssAtStart)}; issuing ${TOTAL} tokens`);
    const latchRun = await issueTokens(
      latch,
      async (count) => mintLatch(latch, setup, { kind: 'code', count, scope: ['profile'] }),
      (code) => buildRequest({ method: 'POST', path: '/oauth2/token', host, headers: { Authorization: credentials, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}` }),
    );
    const walBytesAtEnd = databaseBytes(dataDir) - statSync(join(dataDir, 'latch.db')).size;
    const after = checkpointAndMeasure(dataDir);
    report.latch = {
      rssAtStartBytes: rssAtStart,
      rssAtEndBytes: latchRun.samples.at(-1).rssBytes,
      rssMaxBytes: Math.max(...latchRun.samples.map((s) => s.rssBytes)),
      issued: latchRun.issued,
      errors: latchRun.errors,
      seconds: latchRun.seconds,
      databaseBytesBefore: before.fileBytes,
      databaseBytesAfter: after.fileBytes,
      walBytesAtEnd,
      databaseBytesPerToken: (after.fileBytes - before.fileBytes) / latchRun.issued,
      tables: after.tables,
    };
    await stopProcess(latch.child);

    if (WITH_PEER) {
      const peer = { name: 'node-oidc-provider', ...(await startListeningScript(join(BENCH_DIR, 'servers', 'peer.mjs'), { cwd: BENCH_DIR, env: { ...process.env, PORT: '0' }, ipc: true })) };
      children.push(peer.child);
      const { PEER_CLIENT } = await import('./servers/peer-clients.mjs');
      const peerCredentials = basicAuthorization(PEER_CLIENT.client_id, PEER_CLIENT.client_secret);
      let messageId = 0;
      const mint = (count) =>
        new Promise((resolve, reject) => {
          const id = ++messageId;
          const onMessage = (reply) => {
            if (reply.id !== id) return;
            peer.child.off('message', onMessage);
            if (reply.error) reject(new Error(reply.error));
            else resolve(reply.values);
          };
          peer.child.on('message', onMessage);
          peer.child.send({ id, type: 'mint-codes', count, scope: 'profile', clientId: PEER_CLIENT.client_id, redirectUri: REDIRECT_URI });
        });
      const peerHost = `${HOST}:${peer.port}`;
      const rssPeerStart = rssBytes(peer.pid);
      log(`peer: RSS at start ${mib(rssPeerStart)}; issuing ${PEER_TOTAL} tokens`);
      const peerRun = await issueTokens(peer, mint, (code) =>
        buildRequest({ method: 'POST', path: '/oauth2/token', host: peerHost, headers: { Authorization: peerCredentials, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}` }),
        PEER_TOTAL,
      );
      report.peer = { rssAtStartBytes: rssPeerStart, rssAtEndBytes: peerRun.samples.at(-1).rssBytes, rssMaxBytes: Math.max(...peerRun.samples.map((s) => s.rssBytes)), issued: peerRun.issued, errors: peerRun.errors, seconds: peerRun.seconds };
      await stopProcess(peer.child);
    }
  } finally {
    for (const child of children) await stopProcess(child);
    rmSync(workDir, { recursive: true, force: true });
  }

  const lines = [
    MEMORY_START,
    '## Memory and storage per issued token',
    '',
    `Written by \`npm run bench:memory\` on ${report.date} (Node ${report.node}): codes minted in batches through each server's own code path and exchanged at its token endpoint by ${CONNECTIONS} connections; RSS of the server process from /proc.`,
    '',
    '| | Latch (SQLite) | peer (in memory) |',
    '|---|---|---|',
    `| tokens issued | ${report.latch.issued.toLocaleString('en')} | ${report.peer ? report.peer.issued.toLocaleString('en') : '–'} |`,
    `| RSS at start | ${mib(report.latch.rssAtStartBytes)} | ${report.peer ? mib(report.peer.rssAtStartBytes) : '–'} |`,
    ...(report.peer ? [`| RSS per token (growth ÷ tokens) | ${((report.latch.rssAtEndBytes - report.latch.rssAtStartBytes) / report.latch.issued).toFixed(0)} B | ${((report.peer.rssAtEndBytes - report.peer.rssAtStartBytes) / report.peer.issued).toFixed(0)} B |`] : []),
    `| RSS after the last token | ${mib(report.latch.rssAtEndBytes)} | ${report.peer ? mib(report.peer.rssAtEndBytes) : '–'} |`,
    `| highest RSS seen | ${mib(report.latch.rssMaxBytes)} | ${report.peer ? mib(report.peer.rssMaxBytes) : '–'} |`,
    `| database bytes per issued token | ${report.latch.databaseBytesPerToken.toFixed(0)} | – |`,
    `| time to issue them | ${report.latch.seconds.toFixed(0)} s | ${report.peer ? `${report.peer.seconds.toFixed(0)} s` : '–'} |`,
    '',
    `Latch's bytes per token count the access token row and the used code row it came from (codes are kept a day after expiry to recognise replays), with their indexes, after a WAL checkpoint (database ${mib(report.latch.databaseBytesBefore)} → ${mib(report.latch.databaseBytesAfter)}; the WAL held ${mib(report.latch.walBytesAtEnd)} at the end).` +
      (report.latch.tables ? ` By table and index: ${Object.entries(report.latch.tables).filter(([, b]) => b > 65536).map(([n, b]) => `${n} ${mib(b)}`).join(', ')}.` : ''),
    MEMORY_END,
  ];
  const section = lines.join('\n');
  process.stdout.write(`${section}\n`);
  mkdirSync(join(BENCH_DIR, 'results'), { recursive: true });
  writeFileSync(join(BENCH_DIR, 'results', `memory-${report.date.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
  const target = join(ROOT, 'BENCHMARKS.md');
  const existing = existsSync(target) ? readFileSync(target, 'utf8') : '# Benchmarks\n';
  const start = existing.indexOf(MEMORY_START);
  const end = existing.indexOf(MEMORY_END);
  const updated = start >= 0 && end > start ? `${existing.slice(0, start)}${section}${existing.slice(end + MEMORY_END.length)}` : `${existing.trimEnd()}\n\n${section}\n`;
  writeFileSync(target, updated);
  log(`wrote the memory section of ${target}`);
}

await main();
