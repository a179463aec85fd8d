/**
 * The ceiling: a bare node:http server answering a fixed small JSON document to every request. Whatever a
 * Node process on this machine can do per second, with this load client, is bounded by this.
 */
import http from 'node:http';

const body = Buffer.from(JSON.stringify({ ok: true, server: 'bare', note: 'a fixed small JSON' }));
const server = http.createServer((request, response) => {
  // Drain any request body, then answer.
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    response.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`listening on ${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
