/** Runs the `latch` CLI from source in a child process, as an operator would, against a test server's database. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runLatchCli(args: string[], env: Record<string, string>, stdin = ''): Promise<CliResult> {
  const entry = `import(${JSON.stringify(join(process.cwd(), 'src/cli/main.ts'))}).then(async (m) => { process.exitCode = await m.runCli(process.argv.slice(1)); })`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', entry, ...args], {
    env: { ...process.env, LATCH_LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
