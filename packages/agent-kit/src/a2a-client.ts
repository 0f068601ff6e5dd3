import type { AgentCard } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { keepAliveFetch } from './http-fetch.js';

/** keepAliveFetch sending `Authorization: Bearer <token>` (when given) on every request, card included. */
function bearerFetch(token: string | undefined, origin?: string): typeof fetch {
  if (token === undefined && origin === undefined) return keepAliveFetch;
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    if (origin !== undefined && url.origin !== origin) return Promise.reject(new Error(`refused a request to ${url.origin}: the agent was given as ${origin}, and nothing is sent elsewhere`));
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    if (input instanceof Request) return keepAliveFetch(new Request(input, { headers, redirect: origin === undefined ? input.redirect : 'error' }));
    return keepAliveFetch(input, { ...init, headers, ...(origin === undefined ? {} : { redirect: 'error' as const }) });
  };
}

function factoryWith(fetchImpl: typeof fetch): ClientFactory {
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
}

/**
 * The official A2A client factory over keepAliveFetch, sending `Authorization: Bearer <token>` on every request (card
 * included) when a token is given.
 */
export function a2aClientFactory(token: string | undefined): ClientFactory {
  return factoryWith(bearerFetch(token));
}

/**
 * A client of the agent at `baseUrl`, reached at that origin whatever its card names: the card says where the agent's
 * own deployment publishes it (a Service DNS name), while the caller may reach it another way (a port-forward, an
 * ingress). Its interfaces keep their paths on the given origin; the token goes nowhere else, and no redirect is
 * followed. How `flotilla ask` and the Slack bot reach a supervisor.
 */
export async function connectA2AAgent(baseUrl: string, token: string | undefined): Promise<Client> {
  const origin = new URL(baseUrl).origin;
  const fetchImpl = bearerFetch(token, origin);
  const card: AgentCard = await new DefaultAgentCardResolver({ fetchImpl }).resolve(baseUrl);
  const rebased: AgentCard = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => {
      if (!URL.canParse(i.url)) return i;
      const url = new URL(i.url);
      return { ...i, url: `${origin}${url.pathname}${url.search}` };
    }),
  };
  return factoryWith(fetchImpl).createFromAgentCard(rebased);
}
