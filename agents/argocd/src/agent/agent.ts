import type { Client } from '@modelcontextprotocol/client';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { createWorkflow, type AnswerCacheStore, type CachedTurn, type CapabilityIndex, mcpToolCaller, rulesModel, type AgentModel, type MemoryStore } from '@flotilla/agent-kit';
import type { TokenCounter } from '@flotilla/tokens';
import { argoCdDomain, type ArgoMemory } from './domain.js';
import { createArgoCdClassifier, type ArgoIntent } from './intents.js';


/** Standalone questions whose answers may be reused (continuations such as "next page" never are). */
export const CACHEABLE_INTENTS: readonly ArgoIntent[] = ['list_applications', 'application_details', 'search', 'attention', 'list_projects', 'list_applicationsets', 'list_clusters', 'help'];

export interface ArgoCdAgentOptions {
  /** An MCP client connected to the Argo CD MCP server (in memory or over HTTP). */
  readonly mcp: Client;
  readonly counter: TokenCounter;
  /** The rules model by default; an LLM model plugs in here later. */
  readonly model?: AgentModel<ArgoIntent>;
  readonly checkpointer?: BaseCheckpointSaver;
  /** The tools' capability index: the "what can you do" answer lists it. */
  readonly capabilities?: CapabilityIndex | undefined;
  /** The memory guard's budget factor (0.5 while memory is tight): halves the answer budget. */
  readonly budgetFactor?: (() => number) | undefined;
  /** Reuses answers to the same standalone question for 5 minutes (never continuations, never "refresh"/"now"). */
  readonly answerCache?: AnswerCacheStore<CachedTurn<ArgoIntent, ArgoMemory>> | undefined;
  /** What the next turn of a conversation needs ("next page"); in memory by default, Redis to share it between replicas. */
  readonly memoryStore?: MemoryStore<ArgoMemory> | undefined;
}

/** The Argo CD agent: the kit's workflow with the Argo CD intents, plans and presentation rules. */
export function createArgoCdAgent(options: ArgoCdAgentOptions) {
  return createWorkflow({
    model: options.model ?? rulesModel(createArgoCdClassifier()),
    domain: argoCdDomain,
    callTool: mcpToolCaller(options.mcp),
    counter: options.counter,
    checkpointer: options.checkpointer,
    capabilities: options.capabilities,
    budgetFactor: options.budgetFactor,
    answerCache: options.answerCache === undefined ? undefined : { cache: options.answerCache, cacheableIntents: CACHEABLE_INTENTS },
    memoryStore: options.memoryStore,
  });
}
