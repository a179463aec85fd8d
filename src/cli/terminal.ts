/**
 * What a command reads and writes: its environment, standard input and the two output streams. `bin/latch.js`
 * gives the process's own (processTerminal); a caller that runs commands in its own process (the test suite) gives
 * its own, so that a command's settings and output are its caller's and not the process's. Two things stay the
 * process's: its working directory (relative paths, such as the default sqlite:data/latch.db), and the PG*
 * variables node-postgres reads from process.env itself (PGUSER, PGPASSWORD, PGSSLMODE…).
 */
export interface TextOutput {
  write(text: string): unknown;
}

export interface Terminal {
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: AsyncIterable<Buffer | string>;
  readonly stdout: TextOutput;
  readonly stderr: TextOutput;
  /**
   * Whether the command owns its process, so that it may change process-wide state such as its CPU priority
   * (`latch db backup` runs at nice 19): true for `bin/latch.js`, false for a command run inside another program.
   */
  readonly ownsProcess: boolean;
}

export function processTerminal(): Terminal {
  return { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, ownsProcess: true };
}
