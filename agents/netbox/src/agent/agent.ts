import type { Client } from '@modelcontextprotocol/client';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { createDomainWorkflow } from '@flotilla/agent-host';
import type { AnswerCacheStore, CachedTurn, CapabilityIndex, AgentModel, MemoryStore } from '@flotilla/agent-kit';
import type { ProgressiveSession, RateState, SessionStore } from '@flotilla/limitations';
import type { TokenCounter } from '@flotilla/tokens';
import { createNetBoxDomain } from './domain.js';
import { createNetBoxClassifier, type NetBoxIntent } from './intents.js';
import { NETBOX_OUTPUT_SCHEMAS } from '../tools/tools.js';

/** Standalone questions whose answers may be reused (continuations such as "next page" never are). */
export const CACHEABLE_INTENTS: readonly NetBoxIntent[] = ['list_sites', 'list_devices', 'device_details', 'site_interfaces', 'device_interfaces', 'list_cables', 'list_vlans', 'list_prefixes', 'prefix_free', 'prefix_used', 'search', 'help'];

export interface NetBoxAgentOptions {
  /** An MCP client connected to the NetBox MCP server (in memory or over HTTP). */
  readonly mcp: Client;
  readonly counter: TokenCounter;
  readonly model?: AgentModel<NetBoxIntent>;
  readonly checkpointer?: BaseCheckpointSaver;
  /** The tools' capability index: the "what can you do" answer lists it. */
  readonly capabilities?: CapabilityIndex | undefined;
  /** The memory guard's budget factor (0.5 while memory is tight): halves the answer budget. */
  readonly budgetFactor?: (() => number) | undefined;
  /** Reuses answers to the same standalone question for 5 minutes (never continuations, never "refresh"/"now"). */
  readonly answerCache?: AnswerCacheStore<CachedTurn<NetBoxIntent, ProgressiveSession>> | undefined;
  /** Progressive sessions kept here too (files: a restarted agent continues "next batch"). */
  readonly sessions?: SessionStore | undefined;
  /** The conversations' progressive sessions as a memory store, when `sessions` is not given (the host's). */
  readonly memoryStore?: MemoryStore<ProgressiveSession> | undefined;
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
