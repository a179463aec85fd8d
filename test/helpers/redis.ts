/** Redis for tests: the server on the CI machine (`LATCH_TEST_REDIS_URL`, default redis://127.0.0.1:6379); tests skip, saying why, without it. */
import { connect } from 'node:net';

export const REDIS_TEST_URL = process.env.LATCH_TEST_REDIS_URL || 'redis://127.0.0.1:6379';

export async function redisUnavailableReason(): Promise<string | null> {
  const { hostname, port } = new URL(REDIS_TEST_URL);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    // A Redis that is not there refuses at once; the wait is for a busy test process, whose event loop can be held
    // for seconds while the modules of a shared group load (a 2 s wait skipped the Redis tests of one such run).
    socket.setTimeout(15_000);
    const fail = (why: string) => {
      socket.destroy();
      resolve(`Redis is unreachable at ${REDIS_TEST_URL} (${why}); set LATCH_TEST_REDIS_URL to run these tests`);
    };
    socket.once('connect', () => {
      socket.write('PING\r\n');
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG') ? null : `Redis at ${REDIS_TEST_URL} did not answer PING`);
      });
    });
    socket.once('timeout', () => fail('timeout'));
    socket.once('error', (error) => fail(error.message));
  });
}
