/**
 * Runs a `latch …` command inside the test process, against a test server's database: `runCli` of src/cli/main.ts
 * with its own environment, standard input and captured output (src/cli/terminal.ts), as `bin/latch.js` runs it
 * with the process's. A child process per command cost about 0.45 s of CPU (Node's start and the CLI's modules),
 * and the suite runs a few hundred; the commands' code is the same, and test/operations/cli.test.ts runs the real
 * `bin/latch.js` as an operator does (exit codes, standard input, the compiled bundle).
 *
 * A command runs with the environment given, not process.env, which it leaves alone (but see src/cli/terminal.ts
 * for what stays the process's). An error a command does not handle ends it as it would end the process: exit
 * code 1, the stack on standard error.
 */
import { Readable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import type { Terminal } from '../../src/cli/terminal.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `latch ARGS…` with exactly `env`, `stdin` as standard input. `serve` is not for here: startLatchProcess. */
export async function runCommandInProcess(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<CliResult> {
  if (args[0] === 'serve') throw new Error('latch serve owns its process: start it with startLatchProcess (latch-process.ts)');
  let stdout = '';
  let stderr = '';
  const terminal: Terminal = {
    env,
    stdin: Readable.from([Buffer.from(stdin)]),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    ownsProcess: false,
  };
  let code: number;
  try {
    code = await runCli(args, terminal);
  } catch (error) {
    stderr += `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
    code = 1;
  }
  return { code, stdout, stderr };
}

/** `latch ARGS…` with this process's environment and `env` over it, logging silenced. */
export function runLatchCli(args: string[], env: Record<string, string>, stdin = ''): Promise<CliResult> {
  return runCommandInProcess(args, { ...process.env, LATCH_LOG_LEVEL: 'silent', ...env }, stdin);
}
