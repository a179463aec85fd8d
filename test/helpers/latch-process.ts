/**
 * Latch as real child processes, started the way an operator does: `node bin/latch.js …` on the compiled and
 * bundled code (dist/bundle/): `latch serve` (startLatchProcess) and a command that needs a process of its own
 * (runLatchProcess). The other commands run in the test's process (runLatch, through cli.ts). The build (tsc, then
 * scripts/bundle-cli.mjs) is brought up to date first when any source file is newer than it; one build at a time
 * across parallel test files (a lock folder).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { join, resolve } from 'node:path';
import { runCommandInProcess, type CliResult } from './cli.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'latch.js');
const BUILT_ENTRY = join(ROOT, 'dist', 'bundle', 'main.js');
const LOCK = join(ROOT, '.tmp', 'build.lock');

function newestSourceMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMtime(path));
    else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function buildIsCurrent(): boolean {
  try {
    return statSync(BUILT_ENTRY).mtimeMs >= newestSourceMtime(join(ROOT, 'src'));
  } catch {
    return false;
  }
}

let built: Promise<void> | undefined;

/** Compiles src/ to dist/ (tsconfig.build.json) and bundles it, unless the bundle is already newer than every source file. */
export function ensureBuilt(): Promise<void> {
  built ??= (async () => {
    mkdirSync(join(ROOT, '.tmp'), { recursive: true });
    for (let waited = 0; !buildIsCurrent(); waited += 200) {
      try {
        mkdirSync(LOCK);
      } catch {
        // Another test file is building; a lock older than five minutes was left by a killed run.
        const lock = statSync(LOCK, { throwIfNoEntry: false });
        if (lock && Date.now() - lock.mtimeMs > 300_000) rmdirSync(LOCK);
        if (waited > 180_000) throw new Error(`timed out waiting for another build (${LOCK})`);
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      try {
        const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
        for (const step of [[tsc, '-p', join(ROOT, 'tsconfig.build.json')], [join(ROOT, 'scripts', 'bundle-cli.mjs')]]) {
          const result = spawnSync(process.execPath, step, { cwd: ROOT, encoding: 'utf8' });
          if (result.status !== 0) throw new Error(`build failed:\n${result.stdout}${result.stderr}`);
        }
      } finally {
        rmdirSync(LOCK);
      }
    }
  })();
  return built;
}

/** The environment every Latch child gets: this one's PATH and HOME, nothing else inherited by accident. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: '0', LATCH_LOG_LEVEL: 'info', ...env };
}

export interface LatchProcess {
  child: ChildProcess;
  /** http://127.0.0.1:PORT, read from the process's own log. */
  baseUrl: string;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends the signal (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `latch serve ARGS…` and waits until it listens (its log says "listening on …"). */
/** `onOutput` sees the whole output so far after each chunk, also before the process listens. */
export async function startLatchProcess(options: { env: Record<string, string>; args?: string[]; timeoutMs?: number; onOutput?: (output: string) => void }): Promise<LatchProcess> {
  await ensureBuilt();
  const child = spawn(process.execPath, [BIN, 'serve', ...(options.args ?? [])], { cwd: ROOT, env: childEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    child.once('exit', (code, signal) => resolveExit({ code, signal }));
  });
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      // Not left running: its open pipes would keep the test process alive after the failure.
      child.kill('SIGKILL');
      reject(new Error(`Latch did not start within ${options.timeoutMs ?? 30_000} ms:\n${output}`));
    }, options.timeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      options.onOutput?.(output);
      const match = /listening on (http:\/\/[^\s)"]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!.replace('[::1]', '127.0.0.1'));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`Latch exited (code ${code}, signal ${signal}) before listening:\n${output}`));
    });
  });
  return {
    child,
    baseUrl,
    output: () => output,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Runs one `latch …` command to completion, with the environment a child of startLatchProcess gets (childEnv), in
 * this process (cli.ts runCommandInProcess): the commands set up and inspect what the Latch processes serve.
 */
export function runLatch(args: string[], options: { env: Record<string, string>; input?: string }): Promise<CliResult> {
  return runCommandInProcess(args, childEnv(options.env), options.input ?? '');
}

/**
 * Runs one `latch …` command as a child process (`node bin/latch.js …`), for what only a process of its own shows:
 * `latch db backup` lowering its own CPU priority beside a serving Latch, the bundle, the exit status.
 */
export async function runLatchProcess(args: string[], options: { env: Record<string, string>; input?: string }): Promise<CliResult> {
  await ensureBuilt();
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    // 'close', not 'exit': the output streams may still hold data at the exit. Killed by a signal: 128 + its
    // number, as a shell reports it.
    child.on('close', (code, signal) => resolveRun({ code: code ?? 128 + (signal ? constants.signals[signal] : 0), stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
