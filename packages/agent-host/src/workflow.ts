import type { Client } from '@modelcontextprotocol/client';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { createWorkflow, mcpToolCaller, rulesModel, type AgentDomain, type AgentModel, type AnswerCacheStore, type CachedTurn, type CapabilityIndex, type Classification, type MemoryStore } from '@flotilla/agent-kit';
import type { TokenCounter } from '@flotilla/tokens';
import type { z } from 'zod';

/** A domain's rules workflow over its MCP tools: what every domain agent's `createXAgent` is built on. */
export interface DomainWorkflowOptions<I extends string, M> {
  /** An MCP client connected to the domain's MCP server (in memory or over HTTP). */
  readonly mcp: Client;
  readonly counter: TokenCounter;
  /** The domain's rules classifier: the model unless `model` says otherwise. */
  readonly classifier: { classify(question: string): Classification<I> };
  readonly domain: AgentDomain<I, M>;
  /** Standalone questions whose answers may be reused (continuations such as "next page" never are). */
  readonly cacheableIntents: readonly I[];
  readonly model?: AgentModel<I> | undefined;
  readonly checkpointer?: BaseCheckpointSaver | undefined;
  /** The tools' capability index: the "what can you do" answer lists it. */
  readonly capabilities?: CapabilityIndex | undefined;
  /** The memory guard's budget factor (0.5 while memory is tight): halves the answer budget. */
  readonly budgetFactor?: (() => number) | undefined;
  /** Reuses answers to the same standalone question for 5 minutes (never continuations, never "refresh"/"now"). */
  readonly answerCache?: AnswerCacheStore<CachedTurn<I, M>> | undefined;
  /** What the next turn of a conversation needs ("next page"); in memory by default, Redis to share it between replicas. */
  readonly memoryStore?: MemoryStore<M> | undefined;
  /** The tools' output schemas by name (the domain's tools module's): results are validated with them, not cast. */
  readonly outputSchemas?: Readonly<Record<string, z.ZodType>> | undefined;
}

/** The kit's workflow with a domain's classifier, plans and presentation, its tools called over MCP. */
export function createDomainWorkflow<I extends string, M>(options: DomainWorkflowOptions<I, M>) {
  return createWorkflow<I, M>({
    model: options.model ?? rulesModel(options.classifier),
    domain: options.domain,
    callTool: mcpToolCaller(options.mcp, { schemas: options.outputSchemas }),
    counter: options.counter,
    ...(options.checkpointer === undefined ? {} : { checkpointer: options.checkpointer }),
    capabilities: options.capabilities,
    budgetFactor: options.budgetFactor,
    answerCache: options.answerCache === undefined ? undefined : { cache: options.answerCache, cacheableIntents: options.cacheableIntents },
    memoryStore: options.memoryStore,
  });
}
