/**
 * What argon2id alone allows on this machine: password verifications per second at Latch's shipped
 * parameters (imported from the compiled ../dist), with the same library, the same libuv thread pool settings
 * as the server (UV_THREADPOOL_SIZE from the environment, as Latch would see it) and `inFlight` verifications
 * kept running, for `durationMs`. Prints one JSON line.
 *
 *   node argon2-alone.mjs '{"durationMs": 10000, "inFlight": 32}'
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { PASSWORD_HASH_OPTIONS } from '../dist/accounts/passwords.js';

const argon2 = createRequire(new URL('../package.json', import.meta.url))('argon2');
const { durationMs, inFlight } = JSON.parse(process.argv[2]);
const password = 'bench correct horse battery staple';
const hash = await argon2.hash(password, PASSWORD_HASH_OPTIONS);
// Warm the pool and the code path.
await Promise.all(Array.from({ length: 4 }, () => argon2.verify(hash, password)));

let verified = 0;
const start = performance.now();
const deadline = start + durationMs;
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (performance.now() < deadline) {
      if (!(await argon2.verify(hash, password))) throw new Error('verification failed');
      verified += 1;
    }
  }),
);
const elapsedMs = performance.now() - start;
process.stdout.write(`${JSON.stringify({ verified, elapsedMs, perSecond: (verified / elapsedMs) * 1000, options: PASSWORD_HASH_OPTIONS, threadPoolSize: process.env.UV_THREADPOOL_SIZE ?? '4 (libuv default)' })}\n`);
