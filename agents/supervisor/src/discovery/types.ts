/** Where a domain agent can be reached, and who said so. */
export interface AgentEndpoint {
  /** Stable id: the configured name, or `<namespace>/<service>` when discovered in Kubernetes. */
  readonly id: string;
  /** Base URL of the A2A agent (its card is at `${url}/.well-known/agent-card.json`). */
  readonly url: string;
  readonly source: 'config' | 'kubernetes';
}

export type EndpointChange = { readonly type: 'added' | 'updated'; readonly endpoint: AgentEndpoint } | { readonly type: 'removed'; readonly id: string };

/** A source of agent endpoints: fixed configuration, or Kubernetes Services watched for changes. */
export interface AgentSource {
  /** Starts reporting: every endpoint known now as `added`, then changes as they happen. */
  start(listener: (change: EndpointChange) => void): Promise<void>;
  close(): Promise<void>;
}

/** Endpoints from configuration (`name=url` pairs): reported once, never change. */
export function staticAgentSource(endpoints: readonly { readonly id: string; readonly url: string }[]): AgentSource {
  return {
    start(listener) {
      for (const endpoint of endpoints) listener({ type: 'added', endpoint: { ...endpoint, source: 'config' } });
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}
