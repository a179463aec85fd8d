import type { Terminal } from './terminal.js';

/** Reads all of standard input (for --password-stdin), without the one trailing newline a shell adds. */
export async function readStdin(terminal: Terminal): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of terminal.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
