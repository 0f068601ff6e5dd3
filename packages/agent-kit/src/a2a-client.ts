import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';

/**
 * The official A2A client factory, sending `Authorization: Bearer <token>` on every request (card included) when
 * a token is given: how the Slack bot and `flotilla ask` reach a supervisor started with --a2a-tokens.
 */
export function a2aClientFactory(token: string | undefined): ClientFactory {
  if (token === undefined) return new ClientFactory();
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
}
