/**
 * The app a sign-in or sign-up page works for: the client of the authorization request the page will return to
 * (its `return_to`, a local path: session/return-to.ts), so that the page can say "to continue to Orbit Notes"
 * (issue 19 item 1). Only what the app registered is shown: its name, logo and homepage; nothing from the URL.
 */
import type { Storage } from '../storage/storage.js';

export interface RequestingApp {
  name: string;
  logoUrl: string | null;
  homepageUrl: string | null;
}

export async function requestingApp(storage: Storage, returnTo: string): Promise<RequestingApp | null> {
  if (!returnTo.startsWith('/oauth2/authorize?')) return null;
  const clientId = new URLSearchParams(returnTo.slice(returnTo.indexOf('?') + 1)).getAll('client_id');
  // A request with no client_id or two of them is refused at the authorization endpoint: name no app for it.
  if (clientId.length !== 1 || clientId[0]!.length > 256) return null;
  const client = await storage.clients.findById(clientId[0]!);
  return client ? { name: client.name, logoUrl: client.logoUrl, homepageUrl: client.homepageUrl } : null;
}
