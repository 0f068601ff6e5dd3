import { createMemoryResultStore } from '@flotilla/bounded-tools';
import { silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { startArgoCdSimulator, type ArgoEstate, type RunningSimulator } from '@flotilla/simulators';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { UPSTREAM_DEFAULTS } from '@flotilla/upstream';
import { ArgoCdClient } from './client/argocd-client.js';
import { connectArgoCdToolsInProcess } from './server.js';

/** The Argo CD tools over a simulator of `estate`, in process: what the agent's tests ask through. */
export interface ArgoCdToolsHarness {
  readonly sim: RunningSimulator;
  readonly tools: Awaited<ReturnType<typeof connectArgoCdToolsInProcess>>;
  readonly counter: TokenCounter;
  close(): Promise<void>;
}

/** Starts a simulator of `estate` (bearer `token`) and connects the MCP tools to it in process, with default limits. */
export async function argoCdToolsOverSimulator(options: { readonly token: string; readonly estate: ArgoEstate }): Promise<ArgoCdToolsHarness> {
  const counter = await loadTokenCounter();
  const sim = await startArgoCdSimulator({ token: options.token, estate: options.estate });
  const metrics = createMetrics();
  const client = new ArgoCdClient({ baseUrl: sim.url, token: options.token, limits: UPSTREAM_DEFAULTS, metrics, logger: silentLogger() });
  const tools = await connectArgoCdToolsInProcess({ client, counter, store: createMemoryResultStore(), metrics, logger: silentLogger() });
  return {
    sim,
    tools,
    counter,
    close: async () => {
      await tools.close();
      await sim.close();
    },
  };
}
