import { createDomainWorkflow, type DomainAgentOptions } from '@flotilla/agent-host';
import type { MemoryStore } from '@flotilla/agent-kit';
import type { ProgressiveSession, RateState, SessionStore } from '@flotilla/limitations';
import { createNetBoxDomain } from './domain.js';
import { createNetBoxClassifier, type NetBoxIntent } from './intents.js';
import { NETBOX_OUTPUT_SCHEMAS } from '../tools/tools.js';

/** Standalone questions whose answers may be reused (continuations such as "next page" never are). */
export const CACHEABLE_INTENTS: readonly NetBoxIntent[] = ['list_sites', 'list_devices', 'device_details', 'site_interfaces', 'device_interfaces', 'list_cables', 'list_vlans', 'list_prefixes', 'prefix_free', 'prefix_used', 'search', 'help'];

/**
 * The shared workflow's options (an MCP client to the NetBox MCP server, …; `memoryStore` holds the conversations'
 * progressive sessions), and NetBox's own.
 */
export interface NetBoxAgentOptions extends DomainAgentOptions<NetBoxIntent, ProgressiveSession> {
  /** Progressive sessions kept here instead of `memoryStore` (files: a restarted agent continues "next batch"). */
  readonly sessions?: SessionStore | undefined;
  /** The shared rate limiter's state, when the tools run in this process. */
  readonly rate?: (() => RateState | undefined) | undefined;
}

/** A session store as the workflow's memory store: the conversation's progressive session is its memory. */
export function sessionMemory(sessions: SessionStore): MemoryStore<ProgressiveSession> {
  return {
    load: (contextId) => sessions.get(contextId),
    save: (contextId, memory) => (memory === undefined ? sessions.delete(contextId) : sessions.put({ ...memory, contextId })),
  };
}

/** The NetBox agent: the kit's workflow with the NetBox intents, limitation handling and presentation rules. */
export function createNetBoxAgent(options: NetBoxAgentOptions) {
  return createDomainWorkflow({
    ...options,
    classifier: createNetBoxClassifier(),
    domain: createNetBoxDomain({ rate: options.rate }),
    cacheableIntents: CACHEABLE_INTENTS,
    outputSchemas: NETBOX_OUTPUT_SCHEMAS,
    memoryStore: options.sessions === undefined ? options.memoryStore : sessionMemory(options.sessions),
  });
}
