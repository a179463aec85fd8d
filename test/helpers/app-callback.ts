/**
 * An app's redirect URI that a browser can really reach, for browser tests that follow the flow back to the app:
 * a local HTTP server answering every request with a small page. A made-up host (rp.example.test) would fail to
 * resolve, and Chromium's headless shell does not route a navigation that follows a redirect to a stub, so the
 * page would become an error page that interrupts the test's next navigation.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AppCallback {
  /** http://127.0.0.1:PORT/callback */
  url: string;
  close(): Promise<void>;
}

export async function startAppCallback(): Promise<AppCallback> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Back at the app</title><h1>Back at the app</h1></html>');
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
