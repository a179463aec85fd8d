/** The peer's one confidential client, shared by the peer server and the bench (the second registration
 * differs only in its id_token algorithm, for scenario d3). */
export const PEER_CLIENT = {
  client_id: 'bench-client',
  client_secret: 'bench-peer-client-secret-0123456789abcdefghijklmnop',
  redirect_uri: 'http://127.0.0.1:9999/callback',
};
export const PEER_CLIENT_ES256 = { ...PEER_CLIENT, client_id: 'bench-client-es256' };
