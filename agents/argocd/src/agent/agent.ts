import type { Client } from '@modelcontextprotocol/client';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { createWorkflow, type CapabilityIndex, mcpToolCaller, rulesModel, type AgentModel } from '@flotilla/agent-kit';
import type { TokenCounter } from '@flotilla/tokens';
import { argoCdDomain } from './domain.js';
import { createArgoCdClassifier, type ArgoIntent } from './intents.js';

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
  });
}
