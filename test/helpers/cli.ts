/**
 * Runs the `latch` CLI in a child process, as an operator would (`node bin/latch.js …`), against a test server's
 * database. The compiled CLI is brought up to date from the sources first (latch-process.ts ensureBuilt), so a
 * test never runs a stale build; starting the compiled CLI takes about half the time of compiling it with tsx at
 * every start, and the suite starts it a few hundred times.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { ensureBuilt } from './latch-process.js';

const BIN = join(resolve(import.meta.dirname, '..', '..'), 'bin', 'latch.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runLatchCli(args: string[], env: Record<string, string>, stdin = ''): Promise<CliResult> {
  await ensureBuilt();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, LATCH_LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? 1, stdout, stderr }));
  });
}
