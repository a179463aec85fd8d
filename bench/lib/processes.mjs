/**
 * Server processes for the bench: start, wait until they answer, read their CPU time and memory from /proc,
 * stop them.
 */
import { execFileSync, fork, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';

const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Every server this bench started, so that an interrupted run (Ctrl-C, SIGTERM) stops them too. */
const started = new Set();
let cleanupInstalled = false;

export function trackChild(child) {
  started.add(child);
  child.once('exit', () => started.delete(child));
  if (!cleanupInstalled) {
    cleanupInstalled = true;
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.once(signal, () => {
        for (const running of started) running.kill('SIGTERM');
        process.exit(130);
      });
    }
  }
  return child;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The process and all its descendants (a server started with --workers forks its workers). */
export function processTree(pid) {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    let children = '';
    try {
      for (const task of readdirSync(`/proc/${tree[i]}/task`)) {
        children += ` ${readFileSync(`/proc/${tree[i]}/task/${task}/children`, 'utf8')}`;
      }
    } catch {
      continue;
    }
    for (const child of children.split(/\s+/).filter(Boolean)) tree.push(Number(child));
  }
  return tree;
}

/** CPU time (user + system) of a process tree, in milliseconds, from /proc/<pid>/stat. */
export function cpuMilliseconds(pid) {
  let ticks = 0;
  for (const member of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${member}/stat`, 'utf8');
      // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended between listing and reading.
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Resident memory of a process tree, in bytes, from /proc/<pid>/status. */
export function rssBytes(pid) {
  let kilobytes = 0;
  for (const member of processTree(pid)) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${member}/status`, 'utf8'));
      if (match) kilobytes += Number(match[1]);
    } catch {
      // ended
    }
  }
  return kilobytes * 1024;
}

/** Polls until `probe()` resolves true, or fails after `timeoutMs`. */
export async function waitUntil(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not become ready in ${timeoutMs} ms${lastError ? `: ${lastError.message}` : ''}`);
}

/** Starts a script that prints "listening on PORT" on its first line of stdout; resolves with pid and port. */
export async function startListeningScript(script, { cwd, env, ipc = false }) {
  const child = ipc
    ? fork(script, [], { cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
    : spawn(process.execPath, [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  trackChild(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const port = await new Promise((resolve, reject) => {
    let stdout = '';
    const onData = (chunk) => {
      stdout += chunk;
      const match = /listening on (\d+)/.exec(stdout);
      if (match) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${stderr}`)));
  });
  return { child, pid: child.pid, port, stderr: () => stderr };
}

export async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
