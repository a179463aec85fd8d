/**
 * A TCP proxy of the test's own, between Latch and a store it depends on (PostgreSQL, Redis), so that a fault
 * test can take that store "away" without touching the machine's service:
 *
 * - `pause('refuse')`: the listener closes (new connections get ECONNREFUSED) and every open connection is
 *   dropped, as when the server is down;
 * - `pause('reset')`: connections are still accepted but dropped at once, and open ones dropped, as when a
 *   failing load balancer or network cuts them;
 * - `pause('stall')`: connections stay open, and new ones are accepted, but nothing passes either way, as when a
 *   network drops packets without telling anyone (no reset, no timeout yet);
 * - `resume()`: connections are forwarded again (on the same port; what a stall held back passes then).
 *
 * `upstreamLocalPorts()` lists the local ports of the proxy's own connections to the target: on PostgreSQL
 * these are the `client_port`s of Latch's backends in `pg_stat_activity`, so that a test can terminate
 * exactly those backends and no one else's.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type PauseMode = 'refuse' | 'reset' | 'stall';

export interface TcpProxy {
  readonly port: number;
  /** host:port to give to Latch instead of the target. */
  readonly address: string;
  readonly state: 'up' | PauseMode;
  /** Connections accepted since the start (forwarded or reset). */
  readonly accepted: number;
  pause(mode?: PauseMode): Promise<void>;
  resume(): Promise<void>;
  /** Local ports of the open proxy→target connections. */
  upstreamLocalPorts(): number[];
  close(): Promise<void>;
}

/**
 * Drops a connection at once. (Not socket.resetAndDestroy(): on Node 20 a socket reset that way while its peer
 * was closing it could leave a handle that never finished closing, and the test process spun at 100% CPU in
 * its exit cleanup, forever.)
 */
function reset(socket: Socket): void {
  socket.destroy();
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let state: 'up' | PauseMode = 'up';
  let accepted = 0;
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let port = 0;

  const onConnection = (client: Socket) => {
    accepted += 1;
    client.on('error', () => {});
    if (state !== 'up' && state !== 'stall') {
      reset(client);
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    upstream.on('error', () => reset(client));
    client.on('error', () => reset(upstream));
    upstream.on('close', () => {
      pairs.delete(pair);
      client.destroy();
    });
    client.on('close', () => {
      pairs.delete(pair);
      upstream.destroy();
    });
    if (state === 'up') forward(pair);
  };

  let server: Server = createServer(onConnection);
  const listen = (s: Server, p: number) =>
    new Promise<number>((resolve, reject) => {
      s.once('error', reject);
      s.listen(p, '127.0.0.1', () => {
        s.off('error', reject);
        resolve((s.address() as { port: number }).port);
      });
    });
  port = await listen(server, 0);
  let listening = true;

  const closeListener = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
    });

  const forward = ({ client, upstream }: { client: Socket; upstream: Socket }) => {
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const resetAll = () => {
    for (const { client, upstream } of [...pairs]) {
      reset(client);
      reset(upstream);
    }
    pairs.clear();
  };

  return {
    get port() {
      return port;
    },
    get address() {
      return `127.0.0.1:${port}`;
    },
    get state() {
      return state;
    },
    get accepted() {
      return accepted;
    },
    async pause(mode: PauseMode = 'refuse') {
      state = mode;
      if (mode === 'stall') {
        for (const { client, upstream } of pairs) {
          client.unpipe(upstream);
          upstream.unpipe(client);
          client.pause();
          upstream.pause();
        }
        return;
      }
      resetAll();
      if (mode === 'refuse') await closeListener();
      else if (!listening) {
        server = createServer(onConnection);
        await listen(server, port);
        listening = true;
      }
    },
    async resume() {
      const was = state;
      state = 'up';
      if (was === 'stall') for (const pair of pairs) forward(pair);
      if (!listening) {
        server = createServer(onConnection);
        // The port was ours a moment ago; retry briefly in case the kernel has not let it go yet.
        for (let attempt = 0; ; attempt++) {
          try {
            await listen(server, port);
            break;
          } catch (error) {
            if (attempt >= 20) throw error;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        listening = true;
      }
    },
    upstreamLocalPorts() {
      return [...pairs].map(({ upstream }) => upstream.localPort).filter((p): p is number => typeof p === 'number');
    },
    async close() {
      state = 'refuse';
      resetAll();
      await closeListener();
    },
  };
}
